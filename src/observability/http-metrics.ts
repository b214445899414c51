import type { Request, RequestHandler } from 'express';
import { metrics } from './metrics';

/** The label of a request no route matched (404s, probes of random paths): never the raw path. */
const UNMATCHED = 'unmatched';

/** The route template (`/v1/apps/:app_id/models`), known once a route matched; else `unmatched`. */
export function routeTemplate(req: Request): string {
  const route: unknown = req.route;
  const path = typeof route === 'object' && route !== null && 'path' in route && typeof route.path === 'string' ? route.path : null;
  return path === null ? UNMATCHED : `${req.baseUrl}${path}`;
}

/** Counts each request by method, route template and status, and times it until its response ends. */
export function httpMetrics(): RequestHandler {
  const { httpRequests, httpDuration } = metrics();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // Node emits a response's 'close' once (emitCloseNT checks `_closed`): `on` spares the two objects `once` wraps a listener in.
    res.on('close', () => {
      const labels = { method: req.method, route: routeTemplate(req), status: String(res.statusCode) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
