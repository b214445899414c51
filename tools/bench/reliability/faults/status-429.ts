import { upstreamFault } from './upstream-fault';

export const status429 = upstreamFault({
  name: '429',
  summary: 'The primary answers HTTP 429 with `Retry-After: 1` on half of its calls; a healthy fallback is in the failover chain. Half the requests stream.',
  fault: { kind: 'status', status: 429, retryAfterSeconds: 1 },
  share: 0.5,
  requests: [48, 16],
  concurrency: 8,
  streamShare: 1 / 2,
  timeoutMs: [30_000, 20_000],
});
