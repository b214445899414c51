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

/**
 * CORS for browser clients, mounted before authentication so that a preflight (`OPTIONS`, which
 * carries no key) is answered 204 rather than 401. No cookies are involved: a key in `Authorization`
 * authenticates every call, so credentials stay off. Requested headers are allowed as asked
 * (`Authorization`, `Content-Type`, the SDKs' `X-Stainless-*`, `Idempotency-Key`, ...).
 */
export function corsMiddleware(origins: CorsOrigins): RequestHandler | null {
  if (origins === 'none') return null;
  return cors({
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_S,
    credentials: false,
    optionsSuccessStatus: 204,
  });
}
