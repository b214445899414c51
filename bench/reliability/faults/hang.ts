import { upstreamFault } from './upstream-fault';

/**
 * The client's patience bounds the row: a request still unanswered then is abandoned (the client closes
 * the connection) and counts as not answered.
 */
export const hang = upstreamFault({
  name: 'hang',
  summary: 'The primary accepts the connection and never answers on half of its calls; a healthy fallback is in the failover chain. Half the requests stream; clients give up after 20 s (15 s short).',
  fault: { kind: 'hang' },
  share: 0.5,
  requests: [16, 8],
  concurrency: 8,
  streamShare: 1 / 2,
  timeoutMs: [20_000, 15_000],
});
