import { startEmbeddingsSimulator } from '../../test/simulator/plugins/embeddings';
import { startSearxngSimulator } from '../../test/simulator/plugins/searxng';
import { runChildEntry } from './child-entry';

/**
 * Child-process entry of `bench:plugins`' plugin backends: a SearXNG simulator (web-search) and an
 * OpenAI embeddings simulator (space-search's hybrid ranking), in their own process so they do not
 * share an event loop with the load generator. Every answer waits `argv[2]` ms (the backend latency
 * the benchmark sets). Prints `{"searxng": url, "embeddings": baseUrl}` once listening; exits when its
 * stdin closes (the parent is gone) or on SIGTERM.
 */
runChildEntry('plugin backends', async () => {
  const delayMs = Number(process.argv[2] ?? '200');
  const searxng = await startSearxngSimulator();
  const embeddings = await startEmbeddingsSimulator();
  for (const faults of [searxng.faults, embeddings.faults]) faults.defaultDelayMs = delayMs;
  // Nothing reads what they record: a long run must not keep every request in memory.
  const forget = setInterval(() => {
    searxng.requests.length = 0;
    embeddings.requests.length = 0;
  }, 1000);
  return {
    ready: { searxng: searxng.url, embeddings: embeddings.baseUrl },
    close: async () => {
      clearInterval(forget);
      await Promise.all([searxng.close(), embeddings.close()]);
    },
  };
});
