import { ERROR_CODES, type ErrorCode } from './error-codes';

export interface ApiErrorBody {
  error: { message: string; type: string; code: ErrorCode; param: string | null };
}

/** The one error type of the service; the error handler turns it into the JSON body. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null = null,
    /** Extra response headers, e.g. `Retry-After`. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_CODES[code].status;
    this.type = ERROR_CODES[code].type;
  }

  toBody(): ApiErrorBody {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }

  static notFound(what: string, param: string | null = null): ApiError {
    return new ApiError('not_found', `${what} not found`, param);
  }
}
