import { timingSafeEqual } from 'node:crypto';

/** Whether a scrape may read the metrics: no token configured means the listener itself is the boundary. */
export type ScrapeAccess = 'allowed' | 'missing' | 'invalid';

/** Checks `Authorization: Bearer <METRICS_TOKEN>` in constant time. */
export function scrapeAccess(authorization: string | undefined, token: string | null): ScrapeAccess {
  if (token === null) return 'allowed';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) return 'missing';
  const given = Buffer.from(match[1]);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'allowed' : 'invalid';
}
