import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError } from '../errors/api-error';
import { isDatabaseBusy } from '../store/db-errors';
import { CommandTimeoutError } from '../queue/command-timeout';
import { isRedisUnavailable, REDIS_RETRY_AFTER_SECONDS } from '../queue/redis-errors';
import { errorBodyIn } from './error-dialect';
import { routeHint } from './route-hints';

/** Seconds a client is asked to wait when the database is saturated. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** What express.json() throws: an http-errors error, with a `type` unless it wraps a stream or zlib error. */
interface BodyParserError {
  type?: unknown;
  status: number;
  expose: true;
  /** `entity.too.large`: the limit, in bytes. */
  limit?: unknown;
}

const isBodyParserError = (err: unknown): err is BodyParserError =>
  typeof err === 'object' && err !== null && (err as { expose?: unknown }).expose === true && typeof (err as { status?: unknown }).status === 'number';

/** Maps errors thrown by express.json() to our codes. */
function fromBodyParser(err: BodyParserError): ApiError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_json', 'The request body is not valid JSON.', 'body');
    case 'entity.too.large':
      return new ApiError(
        'payload_too_large',
        typeof err.limit === 'number' ? `The request body is larger than the ${err.limit} bytes allowed (BODY_LIMIT_BYTES).` : 'The request body is too large.',
        'body',
      );
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ApiError('unsupported_media_type', 'Unsupported body encoding.', 'body');
    default:
      // A body that does not inflate (bad gzip), or whose length differs from Content-Length.
      if (err.status === 400) return new ApiError('invalid_request', 'The request body could not be read.', 'body');
      return null;
  }
}

/**
 * A path segment Express cannot percent-decode where nothing re-escaped it first (the API routes do:
 * see keepUndecodablePathLiteral) names no route.
 */
function fromUndecodablePath(err: unknown, path: string): ApiError | null {
  if (!(err instanceof URIError)) return null;
  return new ApiError('not_found', `No route for ${path}.`);
}

export function toApiError(err: unknown, path = ''): ApiError | null {
  if (err instanceof ApiError) return err;
  if (isBodyParserError(err)) return fromBodyParser(err);
  if (isDatabaseBusy(err)) {
    return new ApiError('service_unavailable', 'The service is busy; retry shortly.').withHeaders({ 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) });
  }
  // Redis unreachable, or a cluster failing over: nothing was done, so the client may send it again.
  if (isRedisUnavailable(err)) {
    const why = err instanceof CommandTimeoutError ? ` (a Redis command had no answer within ${err.timeoutMs} ms)` : '';
    return new ApiError('service_unavailable', `The service is briefly unavailable${why}; retry shortly.`).withHeaders({
      'Retry-After': String(REDIS_RETRY_AFTER_SECONDS),
    });
  }
  return fromUndecodablePath(err, path);
}

/** The one place that writes error bodies. Unknown errors become a 500 naming the request id, never a stack trace. */
// Express recognises an error handler by its four parameters.
// eslint-disable-next-line max-params
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const apiError =
    toApiError(err, `${req.method} ${sentPath(req)}`) ??
    new ApiError('internal_error', `Internal error. Quote request id ${String(req.id)} when reporting it.`);
  if (apiError.status >= 500) req.log.error({ err }, 'request failed');
  else req.log.info({ code: apiError.code, param: apiError.param }, apiError.message);
  if (res.headersSent) {
    res.end();
    return;
  }
  res.set(apiError.headers).status(apiError.status).json(errorBodyIn(req.errorDialect, apiError));
};

/** The path as the client sent it (keepUndecodablePathLiteral may have re-escaped req.url since). */
const sentPath = (req: { originalUrl: string }): string => req.originalUrl.split('?')[0] ?? '';

export const notFoundHandler: RequestHandler = (req) => {
  const path = sentPath(req);
  const hint = routeHint(req.method, path);
  throw new ApiError('not_found', `No route for ${req.method} ${path}.${hint ? ` ${hint}` : ''}`);
};
