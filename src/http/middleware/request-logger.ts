import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

const VALID_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Reuses a sane incoming `X-Request-Id`, otherwise makes one; echoes it on the response. */
function requestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('x-request-id', id);
  return id;
}

/** One JSON log line per request, and `req.log` carrying the request id for every other line. */
export function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: requestId,
    customAttributeKeys: { reqId: 'request_id' },
    // Every line of the request, the access line included, carries `request_id` (the `req` serializer below drops pino-http's own id).
    quietReqLogger: true,
    // A completion's log id (also its job's): the worker's lines carry it too, with the same request_id.
    customProps: (_req, res) => {
      const logId = res.getHeader('x-switchyard-log-id');
      return typeof logId === 'string' ? { log_id: logId } : {};
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
  });
}
