import { upstreamFault } from './upstream-fault';

/**
 * The client's patience bounds the row: a request still unanswered then is abandoned (the client closes
 * the connection) and counts as not answered. A hung call is left after the service's first-byte timeout
 * (UPSTREAM_FIRST_BYTE_TIMEOUT_MS, 15 s by default), so the patience must outlast it plus the fallback's
 * answer in the short run too: at 15 s it equalled the timeout and no hung request could ever be answered.
 */
export const hang = upstreamFault({
  name: 'hang',
  summary:
    'The primary accepts the connection and never answers on half of its calls; a healthy fallback is in the failover chain. Half the requests stream; clients give up after 20 s.',
  fault: { kind: 'hang' },
  share: 0.5,
  requests: [16, 8],
  concurrency: 8,
  streamShare: 1 / 2,
  timeoutMs: [20_000, 20_000],
});
