import { UpstreamError, type UpstreamErrorKind } from '../../errors/upstream-error';
import type { ErrorBody } from './wire';

const PROVIDER = 'anthropic';

/**
 * Anthropic's `error.type` values and what they mean for us. HTTP errors are classified by status
 * (`kindForStatus`, so 529 `overloaded_error` is a retryable `server_error`); this table is for errors
 * that arrive as an `error` event inside a stream that already answered 200.
 */
const KIND_BY_TYPE: Record<string, UpstreamErrorKind> = {
  invalid_request_error: 'bad_request',
  request_too_large: 'bad_request',
  billing_error: 'bad_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
  rate_limit_error: 'rate_limited',
  timeout_error: 'timeout',
  api_error: 'server_error',
  overloaded_error: 'server_error',
};

function parseErrorBody(text: string): ErrorBody['error'] | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: { type?: unknown; message?: unknown } };
    const { type, message } = parsed.error ?? {};
    return typeof message === 'string' ? { type: typeof type === 'string' ? type : 'api_error', message } : undefined;
  } catch {
    return undefined;
  }
}

/** The message of an HTTP error body, for `postUpstream`. */
export function anthropicErrorMessage(body: string): string | undefined {
  return parseErrorBody(body)?.message;
}

/** The UpstreamError for an `error` event's data; unknown types count as server errors. */
export function streamError(data: string): UpstreamError {
  const error = parseErrorBody(data) ?? { type: 'api_error', message: 'Anthropic reported an error in the stream' };
  return new UpstreamError({
    kind: KIND_BY_TYPE[error.type] ?? 'server_error',
    provider: PROVIDER,
    message: `${error.message} (${error.type})`,
    upstreamBody: data.slice(0, 2000),
  });
}
