import { startSimulator } from '../../test/simulator/server';
import { runChildEntry } from './child-entry';
import { startMinimalUpstream } from './minimal-upstream';

/**
 * Child-process entry of the benchmark's upstream, so the load generator and the upstream do not share
 * an event loop. argv: `simulator` or `minimal`, then the simulator's latency in ms (optional). Prints `{"url": ...}` once listening; exits when its stdin closes (the parent is gone)
 * or on SIGTERM.
 */
runChildEntry('upstream', async () => {
  const kind = process.argv[2] ?? 'simulator';
  // argv[3]: the simulator's latency before each answer, in ms (default none).
  const defaultDelayMs = Number(process.argv[3] ?? '0');
  const upstream = kind === 'minimal' ? await startMinimalUpstream() : await startSimulator({ record: false, defaultDelayMs });
  return { ready: { url: upstream.url, kind }, close: () => upstream.close() };
});
