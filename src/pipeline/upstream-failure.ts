import { ApiError } from '../errors/api-error';
import type { UpstreamError as UpstreamError } from '../errors/upstream-error';

/** Longest part of an upstream's own message passed on for a request it refused (400). */
const MAX_ECHOED_MESSAGE = 300;

/**
 * What the client is told when no attempt succeeded. Upstream bodies stay in the logs; only a 400's
 * message is passed on, since it says what is wrong with the client's own request.
 */
export function failureToApiError(error: UpstreamError, { allRateLimited }: { allRateLimited: boolean }): ApiError {
  const who = error.provider;
  if (allRateLimited) {
    const retryAfter: Record<string, string> =
      error.retryAfterMs !== undefined ? { 'retry-after': String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))) } : {};
    return new ApiError('upstream_rate_limited', 'Every model tried is rate-limited upstream; retry later.').withHeaders(retryAfter);
  }
  switch (error.kind) {
    case 'bad_request':
      return new ApiError('invalid_request', `The provider refused the request: ${error.message.slice(0, MAX_ECHOED_MESSAGE)}`);
    case 'authentication':
    case 'permission':
      return new ApiError('upstream_error', `The provider ${who} refused this service's credentials (HTTP ${error.status ?? '?'}).`);
    case 'timeout':
      return new ApiError('timeout', `The provider ${who} did not answer in time.`);
    case 'aborted':
      return new ApiError('timeout', 'The request was cancelled before it finished.');
    default:
      return new ApiError('upstream_error', `The provider ${who} failed (${error.kind}${error.status ? `, HTTP ${error.status}` : ''}).`);
  }
}
