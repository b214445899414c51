import { startSimulator } from '../test/simulator/server';
import { startMinimalUpstream } from './minimal-upstream';

/**
 * Child-process entry of the benchmark's upstream, so the load generator and the upstream do not share
 * an event loop. argv: `simulator` or `minimal`, then the simulator's latency in ms (optional). Prints `{"url": ...}` once listening; exits when its stdin closes (the parent is gone)
 * or on SIGTERM.
 */
async function main(): Promise<void> {
  const kind = process.argv[2] ?? 'simulator';
  // argv[3]: the simulator's latency before each answer, in ms (default none).
  const defaultDelayMs = Number(process.argv[3] ?? '0');
  const upstream = kind === 'minimal' ? await startMinimalUpstream() : await startSimulator({ record: false, defaultDelayMs });
  process.stdout.write(`${JSON.stringify({ url: upstream.url, kind })}\n`);
  const stop = () => {
    upstream.close().finally(() => process.exit(0));
  };
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`upstream failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
