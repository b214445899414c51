/**
 * Anthropic's error shape, `{"type":"error","error":{"type":...,"message":...}}`, for every error on the
 * Messages routes: bodies the error handler writes and the `event: error` that ends a stream. The status
 * stays ours; the type is Anthropic's family for it, which is what its SDK and clients branch on.
 */

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: AnthropicErrorType; message: string };
}

const TYPE_BY_STATUS: Readonly<Record<number, AnthropicErrorType>> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  // Anthropic's own overload is 529; a 503 here means the same thing: retry later.
  503: 'overloaded_error',
};

export function anthropicErrorType(status: number): AnthropicErrorType {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export function anthropicErrorBody({ status, message }: { status: number; message: string }): AnthropicErrorBody {
  return { type: 'error', error: { type: anthropicErrorType(status), message } };
}
