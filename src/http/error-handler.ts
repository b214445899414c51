import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError } from '../errors/api-error';

interface BodyParserError {
  type: string;
  status?: number;
}

const isBodyParserError = (err: unknown): err is BodyParserError =>
  typeof err === 'object' && err !== null && 'type' in err && typeof (err as { type: unknown }).type === 'string';

/** Maps errors thrown by express.json() to our codes. */
function fromBodyParser(err: BodyParserError): ApiError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_json', 'The request body is not valid JSON.', 'body');
    case 'entity.too.large':
      return new ApiError('payload_too_large', 'The request body is too large.', 'body');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ApiError('unsupported_media_type', 'Unsupported body encoding.', 'body');
    default:
      return null;
  }
}

export function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (isBodyParserError(err)) return fromBodyParser(err);
  return null;
}

/** The one place that writes error bodies. Unknown errors become a 500 naming the request id, never a stack trace. */
// Express recognises an error handler by its four parameters.
// eslint-disable-next-line max-params
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const apiError =
    toApiError(err) ??
    new ApiError('internal_error', `Internal error. Quote request id ${String(req.id)} when reporting it.`);
  if (apiError.status >= 500) req.log.error({ err }, 'request failed');
  else req.log.info({ code: apiError.code, param: apiError.param }, apiError.message);
  if (res.headersSent) {
    res.end();
    return;
  }
  res.set(apiError.headers).status(apiError.status).json(apiError.toBody());
};

export const notFoundHandler: RequestHandler = (req) => {
  throw new ApiError('not_found', `No route for ${req.method} ${req.path}.`);
};
