import cors from 'cors';
import type { RequestHandler } from 'express';
import type { CorsOrigins } from '../../config/cors-origins';

/** Response headers a browser client may read: ids to quote, rate-limit state, where an async job is. */
const EXPOSED_HEADERS = [
  'x-request-id',
  'x-switchyard-log-id',
  'retry-after',
  'location',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'idempotent-replayed',
];

/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;

/** What `cors` sends on every answer that is not a preflight: the names browsers may read, joined once. */
const EXPOSED = EXPOSED_HEADERS.join(',');

/**
 * CORS for browser clients, mounted before authentication so that a preflight (`OPTIONS`, which
 * carries no key) is answered 204 rather than 401. No cookies are involved: a key in `Authorization`
 * authenticates every call, so credentials stay off. Requested headers are allowed as asked
 * (`Authorization`, `Content-Type`, the SDKs' `X-Stainless-*`, `Idempotency-Key`, ...).
 *
 * A preflight goes to the `cors` package. Every other request gets the headers it would set for these
 * fixed options, in its order (allowed origin, `Vary: Origin` for a list, exposed headers), set here
 * directly: the package copies its options and builds arrays of header records for every request.
 */
export function corsMiddleware(origins: CorsOrigins): RequestHandler | null {
  if (origins === 'none') return null;
  const preflight = cors({
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_S,
    credentials: false,
    optionsSuccessStatus: 204,
  });
  return (req, res, next) => {
    if (req.method.toUpperCase() === 'OPTIONS') {
      preflight(req, res, next);
      return;
    }
    if (origins === '*') res.setHeader('Access-Control-Allow-Origin', '*');
    else {
      const origin = req.headers.origin;
      if (origin !== undefined && origins.includes(origin)) res.setHeader('Access-Control-Allow-Origin', origin);
      res.vary('Origin');
    }
    res.setHeader('Access-Control-Expose-Headers', EXPOSED);
    next();
  };
}
