import { ApiError } from '../errors/api-error';
import type { KeySpace } from '../queue/key-space';
import type { RedisClient as Redis } from '../queue/redis';

const WINDOW_MS = 60_000;

/**
 * Sliding-window estimate over two fixed one-minute windows, in one round trip: the previous window's
 * count weighted by how much of it still overlaps, plus the current count. Rejected requests are not
 * counted, so a client that backs off gets through as soon as the estimate allows. Given `current` and
 * `previous` as read; the keys are read with one MGET (Redis counts each command a script runs: three
 * GETs were two commands more per request).
 */
const TAKE_COUNTED = `
local weight = 1 - tonumber(ARGV[2]) / tonumber(ARGV[3])
local limit = tonumber(ARGV[1])
if previous * weight + current + 1 > limit then
  return {0, current, previous}
end
current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2) end
return {1, current, previous}
`;

const TAKE = `
local counts = redis.call('MGET', KEYS[1], KEYS[2])
local current, previous = tonumber(counts[1]) or 0, tonumber(counts[2]) or 0
${TAKE_COUNTED}`;

/**
 * The same, for a limit read from a Space context loaded at a version stamp: the Space's current stamp
 * (KEYS[3], ARGV[4]) is checked first, and a request is counted only when it is still that one.
 * Otherwise `{-1, stamp}` comes back, nothing counted: the caller loads the Space at that stamp and
 * takes under its limit. One round trip where a stamp read and a take were two.
 */
const TAKE_AT_STAMP = `
local read = redis.call('MGET', KEYS[3], KEYS[1], KEYS[2])
local stamp = read[1] or ''
if stamp ~= ARGV[4] then return {-1, stamp} end
local current, previous = tonumber(read[2]) or 0, tonumber(read[3]) or 0
${TAKE_COUNTED}`;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Until the window resets, in ms. */
  resetMs: number;
  /** When rejected: how long until a request would pass, in ms. */
  retryAfterMs: number;
}

type RedisWithLimiter = Redis & {
  switchyardRateLimit(current: string, previous: string, limit: number, elapsed: number, window: number): Promise<[number, number, number]>;
  switchyardRateLimitAtStamp(
    current: string,
    previous: string,
    stampKey: string,
    limit: number,
    elapsed: number,
    window: number,
    stamp: string,
  ): Promise<[number, number, number] | [-1, string]>;
};

/** The Space's version stamp as a take must find it: its Redis key and the stamp the limit was read at. */
export interface ExpectedStamp {
  key: string;
  stamp: string;
}

/** The Redis keys of a Space's current and previous one-minute windows, for the window they were made for. */
interface WindowKeys {
  window: number;
  current: string;
  previous: string;
}

/** Spaces whose window keys are kept at most; past it the map starts again (a process serves far fewer). */
const MAX_KEPT_SPACES = 10_000;

export class RateLimiter {
  private readonly redis: RedisWithLimiter;
  /** Each Space's window keys, made again once a minute instead of twice per request. */
  private readonly windowKeys = new Map<string, WindowKeys>();

  constructor(
    redis: Redis,
    private readonly keys: KeySpace,
  ) {
    redis.defineCommand('switchyardRateLimit', { numberOfKeys: 2, lua: TAKE });
    redis.defineCommand('switchyardRateLimitAtStamp', { numberOfKeys: 3, lua: TAKE_AT_STAMP });
    this.redis = redis as RedisWithLimiter;
  }

  /** Counts one request of the Space against `limit` requests per minute. */
  async take(appId: string, limit: number, now = Date.now()): Promise<RateDecision> {
    const window = Math.floor(now / WINDOW_MS);
    const { current, previous } = this.keysAt(appId, window);
    const elapsed = now - window * WINDOW_MS;
    const counts = await this.redis.switchyardRateLimit(current, previous, limit, elapsed, WINDOW_MS);
    return decisionOf(counts, { limit, elapsed });
  }

  /**
   * `take`, for a limit read at the stamp `expected`: counted only if that is still the Space's stamp.
   * Otherwise the current stamp comes back and nothing was counted.
   */
  async takeAtStamp(
    appId: string,
    { limit, expected, now = Date.now() }: { limit: number; expected: ExpectedStamp; now?: number },
  ): Promise<RateDecision | { stamp: string }> {
    const window = Math.floor(now / WINDOW_MS);
    const { current, previous } = this.keysAt(appId, window);
    const elapsed = now - window * WINDOW_MS;
    const outcome = await this.redis.switchyardRateLimitAtStamp(current, previous, expected.key, limit, elapsed, WINDOW_MS, expected.stamp);
    if (outcome.length === 2) return { stamp: outcome[1] };
    return decisionOf(outcome, { limit, elapsed });
  }

  /** The keys of the Space's window `window` (the minute since the epoch) and of the one before it. */
  private keysAt(appId: string, window: number): WindowKeys {
    let keys = this.windowKeys.get(appId);
    if (keys?.window !== window) {
      if (this.windowKeys.size >= MAX_KEPT_SPACES) this.windowKeys.clear();
      keys = { window, current: this.key(appId, window), previous: this.key(appId, window - 1) };
      this.windowKeys.set(appId, keys);
    }
    return keys;
  }

  private key(appId: string, window: number): string {
    return `${this.keys.space(appId)}:ratelimit:${window}`;
  }
}

function decisionOf([allowed, current, previous]: [number, number, number], { limit, elapsed }: { limit: number; elapsed: number }): RateDecision {
  const used = previous * (1 - elapsed / WINDOW_MS) + current;
  return {
    allowed: allowed === 1,
    limit,
    remaining: Math.max(0, Math.floor(limit - used)),
    resetMs: WINDOW_MS - elapsed,
    retryAfterMs: allowed === 1 ? 0 : retryAfter({ current, previous, limit, elapsed }),
  };
}

/**
 * The wait until `previous * (1 - t/W) + current + 1 <= limit`. When the current window alone is full,
 * its count becomes the next window's `previous`, still weighing fully at that window's start: the
 * wait runs on until enough of it has faded, `W * (current + 1 - limit) / current` into the next window.
 */
function retryAfter({ current, previous, limit, elapsed }: { current: number; previous: number; limit: number; elapsed: number }): number {
  if (current + 1 > limit) return WINDOW_MS - elapsed + Math.ceil((WINDOW_MS * (current + 1 - limit)) / Math.max(current, 1));
  if (previous === 0) return WINDOW_MS - elapsed;
  const overlapNeeded = (limit - current - 1) / previous;
  return Math.max(1, Math.min(WINDOW_MS - elapsed, Math.ceil(WINDOW_MS * (1 - overlapNeeded) - elapsed)));
}

/**
 * OpenAI's header names, plus `Retry-After` when rejected. A rejected request's reset is when a request
 * passes again, the same seconds as its `Retry-After` (the window's end can come sooner: a sliding window
 * still weighs the ended one); an admitted one's is the end of the current window.
 */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const retryAfterS = decision.allowed ? 0 : Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  const headers: Record<string, string> = {
    'x-ratelimit-limit-requests': String(decision.limit),
    'x-ratelimit-remaining-requests': String(decision.remaining),
    'x-ratelimit-reset-requests': `${decision.allowed ? Math.ceil(decision.resetMs / 1000) : retryAfterS}s`,
  };
  if (!decision.allowed) headers['retry-after'] = String(retryAfterS);
  return headers;
}

/**
 * Takes one request from a Space's limit (none when the limit is 0): the rate-limit headers go on the
 * response whatever the outcome, and a request over the limit is refused with 429.
 */
export async function admitToSpace(
  limiter: RateLimiter,
  space: { id: string; rateLimit: number },
  setHeaders: (headers: Record<string, string>) => void,
): Promise<void> {
  if (space.rateLimit <= 0) return;
  applyDecision(await limiter.take(space.id, space.rateLimit), space, setHeaders);
}

/** Puts a decision's headers on the response; a refusal is thrown as 429. */
export function applyDecision(decision: RateDecision, space: { rateLimit: number }, setHeaders: (headers: Record<string, string>) => void): void {
  const headers = rateLimitHeaders(decision);
  setHeaders(headers);
  if (!decision.allowed) {
    throw new ApiError('rate_limit_exceeded', `Rate limit of ${space.rateLimit} requests per minute reached for this Space.`).withHeaders(headers);
  }
}
