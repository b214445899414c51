import type { Fault } from '../fault';
import { callsPerRequest, runUpstreamFault } from './upstream-fault';

/**
 * The figure a circuit breaker and a retry budget aim at: once the primary is known dead, a request should
 * cost about one upstream call (the fallback's), not the primary's retries first. The last fifth of the
 * requests shows the steady state, after whatever the service learnt from the first ones.
 */
export const deadPrimary: Fault = {
  name: 'dead primary',
  summary: 'The primary answers HTTP 500 on every call; a healthy fallback is in the failover chain. Half the requests stream.',
  run: async (ctx) => {
    const { row, completions } = await runUpstreamFault(ctx, {
      name: 'dead primary',
      summary: '',
      fault: { kind: 'status', status: 500 },
      share: 1,
      requests: [120, 40],
      concurrency: 4,
      streamShare: 1 / 2,
      timeoutMs: [30_000, 20_000],
    });
    const lastFifth = completions.slice(Math.floor(completions.length * 0.8));
    const answeredLast = lastFifth
      .filter((c) => c.answered)
      .map((c) => c.latencyMs)
      .sort((a, b) => a - b);
    row.other['calls/req, last fifth'] = Number(callsPerRequest(ctx, lastFifth).toFixed(2));
    row.other['p50 ms, last fifth'] = Number((answeredLast[Math.max(0, Math.ceil(answeredLast.length / 2) - 1)] ?? Number.NaN).toFixed(1));
    return row;
  },
};
