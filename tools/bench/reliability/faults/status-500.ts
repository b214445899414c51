import { upstreamFault } from './upstream-fault';

export const status500 = upstreamFault({
  name: '500',
  summary: 'The primary answers HTTP 500 on half of its calls; a healthy fallback is in the failover chain. Half the requests stream.',
  fault: { kind: 'status', status: 500 },
  share: 0.5,
  requests: [80, 24],
  concurrency: 4,
  streamShare: 1 / 2,
  timeoutMs: [30_000, 20_000],
});
