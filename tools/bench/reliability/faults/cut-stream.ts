import { upstreamFault } from './upstream-fault';

export const cutStream = upstreamFault({
  name: 'cut stream',
  summary:
    'The primary drops the connection after 2 content chunks (mid-body for a JSON answer) on half of its calls; a healthy fallback is in the failover chain. Two requests in three stream.',
  fault: { kind: 'cut', afterChunks: 2 },
  share: 0.5,
  requests: [72, 24],
  concurrency: 4,
  streamShare: 2 / 3,
  timeoutMs: [30_000, 20_000],
});
