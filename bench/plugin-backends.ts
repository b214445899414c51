import { startEmbeddingsSimulator } from '../test/simulator/plugins/embeddings';
import { startSearxngSimulator } from '../test/simulator/plugins/searxng';

/**
 * Child-process entry of `bench:plugins`' plugin backends: a SearXNG simulator (web-search) and an
 * OpenAI embeddings simulator (space-search's hybrid ranking), in their own process so they do not
 * share an event loop with the load generator. Every answer waits `argv[2]` ms (the backend latency
 * the benchmark sets). Prints `{"searxng": url, "embeddings": baseUrl}` once listening; exits when its
 * stdin closes (the parent is gone) or on SIGTERM.
 */
async function main(): Promise<void> {
  const delayMs = Number(process.argv[2] ?? '200');
  const searxng = await startSearxngSimulator();
  const embeddings = await startEmbeddingsSimulator();
  for (const faults of [searxng.faults, embeddings.faults]) faults.defaultDelayMs = delayMs;
  // Nothing reads what they record: a long run must not keep every request in memory.
  const forget = setInterval(() => {
    searxng.requests.length = 0;
    embeddings.requests.length = 0;
  }, 1000);
  process.stdout.write(`${JSON.stringify({ searxng: searxng.url, embeddings: embeddings.baseUrl })}\n`);
  const stop = () => {
    clearInterval(forget);
    Promise.all([searxng.close(), embeddings.close()]).finally(() => process.exit(0));
  };
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`plugin backends failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
