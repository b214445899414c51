import { upstreamFault } from './upstream-fault';

export const reset = upstreamFault({
  name: 'reset',
  summary: 'The primary destroys the connection before answering on half of its calls; a healthy fallback is in the failover chain. Half the requests stream.',
  fault: { kind: 'reset' },
  share: 0.5,
  requests: [80, 24],
  concurrency: 4,
  streamShare: 1 / 2,
  timeoutMs: [30_000, 20_000],
});
