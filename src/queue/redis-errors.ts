/**
 * What ioredis and Redis say when Redis cannot answer for now: a connection refused, reset or closed, a
 * command that timed out (`commandTimeout`) or ran out of retries, a cluster that is down, failing over
 * or has no node left to ask, a slot that moved under a command (a failover's MOVED the client did not
 * follow), a replica not yet promoted, a server still loading. The request was fine; it may be sent again
 * once Redis is back. Other errors (a script's bug, a wrong type) are not these.
 */
const UNAVAILABLE_MESSAGE =
  /^(CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|READONLY|MOVED|ASK)\b|Connection is closed|Command timed out|Too many Cluster redirections|None of startup nodes is available|Failed to refresh slots cache|Cluster isn't ready|Stream isn't writeable|Reached the max retries per request limit|connect ECONNREFUSED|read ECONNRESET|write EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH/;

const UNAVAILABLE_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);

export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return UNAVAILABLE_NAMES.has(err.name) || UNAVAILABLE_MESSAGE.test(err.message);
}

/** Seconds a client is asked to wait while Redis is unavailable: a cluster's failover takes a few. */
export const REDIS_RETRY_AFTER_SECONDS = 2;
