import { startEmbeddingsSimulator } from '../../test/simulator/plugins/embeddings';
import { articlePage, startPageServer, type PageServer } from '../../test/simulator/plugins/page-server';
import { startSearxngSimulator } from '../../test/simulator/plugins/searxng';
import { runChildEntry } from './child-entry';

/** Result pages SearXNG's answers point to when pages are served: as many as it lists. */
const PAGES = 10;

/** A result page of a few kB: an article about the bench's question inside page furniture. */
function resultPage(n: number): string {
  const paragraphs = Array.from(
    { length: 8 },
    (_, i) =>
      `Paragraph ${i + 1} of page ${n}: an electric vehicle charges more slowly in winter, because a cold battery accepts less current; preconditioning while plugged in helps, and charging at home overnight costs less than fast charging on the road.`,
  );
  return articlePage(`Charging an electric car in winter (${n})`, paragraphs);
}

/**
 * Child-process entry of `bench:plugins`' plugin backends: a SearXNG simulator (web-search) and an
 * OpenAI embeddings simulator (space-search's hybrid ranking), in their own process so they do not
 * share an event loop with the load generator. Every answer waits `argv[2]` ms (the backend latency
 * the benchmark sets). With `argv[3]` = `pages`, SearXNG's results point at a page server of this process
 * (answering at once) whose articles web-search can fetch (`--fetch-pages`); otherwise at example.org.
 * Prints `{"searxng": url, "embeddings": baseUrl}` once listening; exits when its stdin closes (the parent
 * is gone) or on SIGTERM.
 */
runChildEntry('plugin backends', async () => {
  const delayMs = Number(process.argv[2] ?? '200');
  const pages: PageServer | null =
    process.argv[3] === 'pages'
      ? await startPageServer(Object.fromEntries(Array.from({ length: PAGES }, (_, i) => [`/page-${i + 1}`, { body: resultPage(i + 1) }])))
      : null;
  const searxng = await startSearxngSimulator(pages ? { resultUrls: Array.from({ length: PAGES }, (_, i) => `${pages.url}/page-${i + 1}`) } : {});
  const embeddings = await startEmbeddingsSimulator();
  for (const faults of [searxng.faults, embeddings.faults]) faults.defaultDelayMs = delayMs;
  // Nothing reads what they record: a long run must not keep every request in memory.
  const forget = setInterval(() => {
    searxng.requests.length = 0;
    embeddings.requests.length = 0;
    if (pages) pages.requests.length = 0;
  }, 1000);
  return {
    ready: { searxng: searxng.url, embeddings: embeddings.baseUrl },
    close: async () => {
      clearInterval(forget);
      await Promise.all([searxng.close(), embeddings.close(), pages?.close()]);
    },
  };
});
