import { createHash } from 'node:crypto';
import type { RedisClient as Redis } from '../queue/redis';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** Where a failed authentication came from: the client address and the prefix of the key it presented. */
export interface AttemptOrigin {
  address: string | undefined;
  keyPrefix: string | undefined;
}

export interface AuthThrottleOptions {
  redis: Redis;
  /** Prefix of every Redis key (REDIS_PREFIX), so every API process of a deployment counts together. */
  prefix: string;
  /** Failures allowed per window from one address; 0 = no limit. */
  addressLimit: number;
  /** Failures allowed per window with one key prefix; 0 = no limit. */
  prefixLimit: number;
  /** The counting window, and how long a subject past its limit stays throttled, in seconds. */
  windowSeconds: number;
  logger: Logger;
}

interface Counter {
  /** `address` or `prefix`: names the Redis keys and this process's memory of blocks. */
  name: string;
  limiter: RateLimiterRedis;
  subjectOf(origin: AttemptOrigin): string | undefined;
}

/** Local memory of throttled subjects, bounded: the least recently used entry goes first (lru-cache). */
const MAX_REMEMBERED = 10_000;

/** Redis keys name a hash of the prefix, never characters of a key someone may really hold. */
const prefixDigest = (keyPrefix: string): string => createHash('sha256').update(keyPrefix, 'utf8').digest('hex').slice(0, 32);

/**
 * Counts failed authentications in Redis per client address and per key prefix (rate-limiter-flexible,
 * one atomic increment per subject), so the limit holds across API processes. A subject past its limit
 * is remembered in this process until its block ends, so later attempts are refused with no I/O at all.
 * Nothing here runs for a key that authenticates.
 */
export class AuthThrottle {
  private readonly counters: Counter[] = [];
  private readonly blockedUntil = new LRUCache<string, number>({ max: MAX_REMEMBERED });

  constructor(private readonly options: AuthThrottleOptions) {
    const counter = (name: string, points: number, subjectOf: Counter['subjectOf']) => {
      if (points <= 0) return;
      const limiter = new RateLimiterRedis({
        storeClient: options.redis,
        keyPrefix: `${options.prefix}:auth-failures:${name}`,
        points,
        duration: options.windowSeconds,
        blockDuration: options.windowSeconds,
      });
      this.counters.push({ name, limiter, subjectOf });
    };
    counter('address', options.addressLimit, (origin) => origin.address);
    counter('prefix', options.prefixLimit, (origin) => (origin.keyPrefix === undefined ? undefined : prefixDigest(origin.keyPrefix)));
  }

  /** How long, in ms, this origin must still wait, as far as this process knows (0: not throttled). No I/O. */
  blockedFor(origin: AttemptOrigin, now = Date.now()): number {
    let wait = 0;
    for (const { name, subjectOf } of this.counters) {
      const subject = subjectOf(origin);
      if (subject === undefined) continue;
      const memoryKey = `${name}:${subject}`;
      const until = this.blockedUntil.get(memoryKey);
      if (until === undefined) continue;
      if (until <= now) this.blockedUntil.delete(memoryKey);
      else wait = Math.max(wait, until - now);
    }
    return wait;
  }

  /**
   * Counts one failure against every subject of the origin, and answers how long it must wait, in ms
   * (0: still under every limit). If Redis cannot be reached the failure goes uncounted rather than
   * turning a wrong key into a 500.
   */
  async recordFailure(origin: AttemptOrigin, now = Date.now()): Promise<number> {
    const known = this.blockedFor(origin, now);
    if (known > 0) return known;
    const waits = await Promise.all(
      this.counters.map(async ({ name, limiter, subjectOf }) => {
        const subject = subjectOf(origin);
        if (subject === undefined) return 0;
        try {
          await limiter.consume(subject);
          return 0;
        } catch (err) {
          if (!(err instanceof RateLimiterRes)) {
            this.options.logger.warn({ err }, 'failed authentication not counted: Redis unavailable');
            return 0;
          }
          this.blockedUntil.set(`${name}:${subject}`, now + err.msBeforeNext);
          return err.msBeforeNext;
        }
      }),
    );
    return Math.max(0, ...waits);
  }
}
