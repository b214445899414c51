import IORedis, { type Redis } from 'ioredis';
import { KeySpace } from '../../src/queue/key-space';
import { RateLimiter, rateLimitHeaders, type RateDecision } from '../../src/intake/rate-limiter';
import { TEST_REDIS_URL, uniqueSuffix } from '../helpers/test-database';

/**
 * The limiter against a real Redis, with the clock passed in: a sliding-window estimate over two fixed
 * one-minute windows, `previous * (1 - elapsed / 60 s) + current`.
 */

const MINUTE = 60_000;
/** The start of some minute, so each test can say how far into it a request comes. */
const T0 = 28_333_334 * MINUTE;

let redis: Redis;
let other: Redis;
let prefix: string;
let limiter: RateLimiter;

beforeAll(() => {
  redis = new IORedis(process.env.REDIS_URL ?? TEST_REDIS_URL);
  other = new IORedis(process.env.REDIS_URL ?? TEST_REDIS_URL);
  prefix = `${process.env.REDIS_PREFIX ?? 'sytest_unit'}_ratelimit_${uniqueSuffix()}`;
  limiter = new RateLimiter(redis, new KeySpace(prefix, false));
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  other.disconnect();
});

/** A Space id no other test uses. */
const space = () => `space-${uniqueSuffix()}`;

/** `times` requests of the Space at the same moment `at`. */
async function takeMany(appId: string, { limit, times, at }: { limit: number; times: number; at: number }): Promise<RateDecision[]> {
  const decisions: RateDecision[] = [];
  for (let i = 0; i < times; i += 1) decisions.push(await limiter.take(appId, limit, at));
  return decisions;
}

describe('RateLimiter within one window', () => {
  it('allows `limit` requests, counting remaining down, and refuses the next until the window ends', async () => {
    const appId = space();
    const now = T0 + 12_000;
    const decisions = await takeMany(appId, { limit: 3, times: 4, at: now });
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    for (const d of decisions) expect(d).toMatchObject({ limit: 3, resetMs: 48_000 });
    expect(decisions.slice(0, 3).map((d) => d.retryAfterMs)).toEqual([0, 0, 0]);
    // The current window alone is full. At the next window's start its 3 requests still count in full,
    // and a 4th fits once they weigh 2, a third into that window: 48 s + 20 s.
    expect(decisions[3].retryAfterMs).toBe(68_000);
    expect(rateLimitHeaders(decisions[3])['retry-after']).toBe('68');
    expect((await limiter.take(appId, 3, T0 + MINUTE)).allowed).toBe(false);
    expect((await limiter.take(appId, 3, now + decisions[3].retryAfterMs - 1)).allowed).toBe(false);
    expect((await limiter.take(appId, 3, now + decisions[3].retryAfterMs)).allowed).toBe(true);
  });

  it('does not count refused requests', async () => {
    const appId = space();
    await takeMany(appId, { limit: 2, times: 5, at: T0 + 1_000 });
    expect(await redis.get(`${prefix}:{${appId}}:ratelimit:${T0 / MINUTE}`)).toBe('2');
  });

  it('keeps a window count for two windows, then lets Redis drop it', async () => {
    const appId = space();
    await limiter.take(appId, 5, T0 + 1_000);
    const ttl = await redis.pttl(`${prefix}:{${appId}}:ratelimit:${T0 / MINUTE}`);
    expect(ttl).toBeGreaterThan(2 * MINUTE - 5_000);
    expect(ttl).toBeLessThanOrEqual(2 * MINUTE);
  });

  it('keeps Spaces apart', async () => {
    const [a, b] = [space(), space()];
    await takeMany(a, { limit: 1, times: 2, at: T0 });
    expect((await limiter.take(b, 1, T0)).allowed).toBe(true);
    expect((await limiter.take(a, 1, T0)).allowed).toBe(false);
  });

  it('shares one count between limiters on different connections (different API processes)', async () => {
    const appId = space();
    const elsewhere = new RateLimiter(other, new KeySpace(prefix, false));
    expect((await limiter.take(appId, 2, T0 + 5_000)).allowed).toBe(true);
    expect(await elsewhere.take(appId, 2, T0 + 5_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.take(appId, 2, T0 + 5_000)).allowed).toBe(false);
    expect((await elsewhere.take(appId, 2, T0 + 5_000)).allowed).toBe(false);
  });
});

describe('RateLimiter across windows (the sliding estimate)', () => {
  it("weighs the previous window's count by how much of it still overlaps the last minute", async () => {
    const appId = space();
    // Four requests in the previous window, at its very end.
    expect((await takeMany(appId, { limit: 4, times: 4, at: T0 - 1 })).every((d) => d.allowed)).toBe(true);
    // A quarter into the new window, 3 of them still count (4 * 0.75): room for exactly one more.
    const quarter = T0 + 15_000;
    expect(await limiter.take(appId, 4, quarter)).toEqual({ allowed: true, limit: 4, remaining: 0, resetMs: 45_000, retryAfterMs: 0 });
    const refused = await limiter.take(appId, 4, quarter);
    // Estimate 4 * 0.75 + 1 = 4: one more needs 4 * w + 1 + 1 <= 4, i.e. w <= 0.5, halfway into the window.
    expect(refused).toEqual({ allowed: false, limit: 4, remaining: 0, resetMs: 45_000, retryAfterMs: 15_000 });
    expect(rateLimitHeaders(refused)).toEqual({
      'x-ratelimit-limit-requests': '4',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '15s',
      'retry-after': '15',
    });
    // Retry-After is exact: a millisecond early is still refused, on time passes.
    expect((await limiter.take(appId, 4, quarter + refused.retryAfterMs - 1)).allowed).toBe(false);
    expect(await limiter.take(appId, 4, quarter + refused.retryAfterMs)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('forgets the previous window entirely after a whole minute', async () => {
    const appId = space();
    await takeMany(appId, { limit: 2, times: 2, at: T0 - 30_000 });
    expect((await limiter.take(appId, 2, T0)).allowed).toBe(false);
    // Two windows later the old count is neither current nor previous.
    expect(await limiter.take(appId, 2, T0 + MINUTE)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('rounds the estimate down for remaining', async () => {
    const appId = space();
    await takeMany(appId, { limit: 10, times: 3, at: T0 - 1 });
    // Halfway into the window 3 * 0.5 = 1.5 still count; with this one 2.5 are used, 7.5 left, shown as 7.
    expect(await limiter.take(appId, 10, T0 + 30_000)).toMatchObject({ allowed: true, remaining: 7 });
    expect(await limiter.take(appId, 10, T0 + 30_000)).toMatchObject({ allowed: true, remaining: 6 });
  });

  it("waits until the previous window's share has faded enough, at most to the end of the window", async () => {
    const appId = space();
    await takeMany(appId, { limit: 2, times: 2, at: T0 - 1 });
    // Two thirds into the window 2 * (1/3) = 0.67 still count: room for one.
    expect((await limiter.take(appId, 2, T0 + 40_000)).allowed).toBe(true);
    // Another needs 2 * w + 1 + 1 <= 2, i.e. w = 0: the previous window must have faded out completely.
    const refused = await limiter.take(appId, 2, T0 + 40_000);
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 20_000 });
    expect(rateLimitHeaders(refused)['retry-after']).toBe('20');
    expect((await limiter.take(appId, 2, T0 + MINUTE - 1)).allowed).toBe(false);
    expect((await limiter.take(appId, 2, T0 + MINUTE)).allowed).toBe(true);
  });
});

describe('rateLimitHeaders', () => {
  it('leaves out Retry-After when allowed and never says less than 1 second', () => {
    expect(rateLimitHeaders({ allowed: true, limit: 5, remaining: 4, resetMs: 59_001, retryAfterMs: 0 })).toEqual({
      'x-ratelimit-limit-requests': '5',
      'x-ratelimit-remaining-requests': '4',
      'x-ratelimit-reset-requests': '60s',
    });
    expect(rateLimitHeaders({ allowed: false, limit: 5, remaining: 0, resetMs: 30_000, retryAfterMs: 1 })['retry-after']).toBe('1');
    expect(rateLimitHeaders({ allowed: false, limit: 5, remaining: 0, resetMs: 30_000, retryAfterMs: 1_001 })['retry-after']).toBe('2');
  });

  it("gives a refused request's reset as its Retry-After, even when the window ends sooner", () => {
    const headers = rateLimitHeaders({ allowed: false, limit: 5, remaining: 0, resetMs: 49_000, retryAfterMs: 61_000 });
    expect(headers).toMatchObject({ 'x-ratelimit-reset-requests': '61s', 'retry-after': '61' });
  });
});

describe('RateLimiter.takeAtStamp (a limit read from a Space loaded at a version stamp)', () => {
  it('counts a request only while the Space is still at that stamp, and otherwise hands back the current stamp', async () => {
    const appId = space();
    const stampKey = `${prefix}:space-version:${appId}`;
    const now = T0 + 5_000;
    // Never changed: the stamp is '' until a first bump.
    const first = await limiter.takeAtStamp(appId, { limit: 2, expected: { key: stampKey, stamp: '' }, now });
    expect(first).toMatchObject({ allowed: true, remaining: 1, limit: 2 });
    await redis.set(stampKey, 'changed');
    expect(await limiter.takeAtStamp(appId, { limit: 2, expected: { key: stampKey, stamp: '' }, now })).toEqual({ stamp: 'changed' });
    // The refused take counted nothing: one request is left at the new stamp, then none.
    expect(await limiter.takeAtStamp(appId, { limit: 2, expected: { key: stampKey, stamp: 'changed' }, now })).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.takeAtStamp(appId, { limit: 2, expected: { key: stampKey, stamp: 'changed' }, now })).toMatchObject({ allowed: false, remaining: 0 });
    expect((await limiter.take(appId, 2, now)).allowed).toBe(false);
  });
});
