import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { RequestHandler } from 'express';
import { routeTemplate } from './http-metrics';
import { tracer, tracingEnabled } from './tracing';

/**
 * The API's span of each request: a child of the caller's span when the request carries a W3C
 * `traceparent`, else a new trace. It is the active span while the request is handled, so the job
 * it queues carries it (see job-trace.ts). Named by method and route template; no path, query or body.
 * Without tracing this is an empty list: nothing runs per request.
 */
export function httpTracing(): RequestHandler[] {
  if (!tracingEnabled()) return [];
  return [
    (req, res, next) => {
      const parent = propagation.extract(ROOT_CONTEXT, req.headers);
      const span = tracer().startSpan(req.method, { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: req.method } }, parent);
      res.once('close', () => {
        const route = routeTemplate(req);
        span.updateName(`${req.method} ${route}`);
        span.setAttributes({ [ATTR_HTTP_ROUTE]: route, [ATTR_HTTP_RESPONSE_STATUS_CODE]: res.statusCode });
        const logId = res.getHeader('x-switchyard-log-id');
        if (typeof logId === 'string') span.setAttribute('switchyard.log_id', logId);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      const active = trace.setSpan(parent, span);
      // The body arrives in stream events, whose callbacks would otherwise run outside the request's context.
      context.bind(active, req);
      context.bind(active, res);
      context.with(active, next);
    },
  ];
}
