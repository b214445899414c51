import type { CompletionFailure } from '../domain/completion';
import { ERROR_CODES, type ErrorCode } from './error-codes';

export interface ApiErrorBody {
  error: { message: string; type: string; code: ErrorCode; param: string | null };
}

/** The one error body of the service (OpenAI's shape), for an ApiError or a failure reported by a worker. */
export function errorBodyOf(failure: Pick<CompletionFailure, 'message' | 'type' | 'code' | 'param'>): ApiErrorBody {
  return { error: { message: failure.message, type: failure.type, code: failure.code as ErrorCode, param: failure.param } };
}

/** The one error type of the service; the error handler turns it into the JSON body. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  /** Extra response headers, e.g. `Retry-After`. */
  headers: Readonly<Record<string, string>> = {};

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_CODES[code].status;
    this.type = ERROR_CODES[code].type;
  }

  withHeaders(headers: Readonly<Record<string, string>>): this {
    this.headers = { ...this.headers, ...headers };
    return this;
  }

  toBody(): ApiErrorBody {
    return errorBodyOf(this);
  }

  /** What a worker reports of this error to the API process waiting for the request. */
  toFailure(): CompletionFailure {
    return { status: this.status, type: this.type, code: this.code, message: this.message, param: this.param, headers: { ...this.headers } };
  }

  static notFound(what: string, param: string | null = null): ApiError {
    return new ApiError('not_found', `${what} not found`, param);
  }
}
