import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';
import { Semaphore } from 'redis-semaphore';
import { UpstreamError } from '../errors/upstream-error';
import { SlotWaiters } from './slot-waiters';

/**
 * How long a slot stays held without renewal, in ms: a worker killed with -9 frees its slots after
 * at most this long. The holder renews it every third of that while its work runs.
 */
export const DEFAULT_LEASE_MS = 15_000;
/**
 * Longest wait between two attempts when no release is heard, in ms: the only way to notice a slot
 * freed by an expired lease (no one publishes for a dead worker) or a release message lost to a
 * reconnect.
 */
const BACKSTOP_MS = 1000;

/**
 * Frees one slot (redis-semaphore's sorted set of leases: KEYS[1], the holder ARGV[1]) and, only if
 * the set was full, says so on the release channel (ARGV[3]) with the backend's key (ARGV[4]). While
 * slots are free no call waits, so nothing is published: a release is one round trip, and the other
 * workers' subscribers are not woken for nothing. A waiter that missed a release (two releases at once
 * from a full set publish once) is woken by the waiter before it, or by its backstop.
 */
const RELEASE = `
local full = redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2])
redis.call('ZREM', KEYS[1], ARGV[1])
if full then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
return full and 1 or 0
`;

type RedisWithRelease = Redis & {
  switchyardReleaseSlot(key: string, holder: string, limit: number, channel: string, backend: string): Promise<number>;
};

export interface LimitedRunOptions {
  /** Aborts the wait (and is the work's own business once it runs). */
  signal: AbortSignal;
  /** Epoch ms after which waiting for a slot gives up. */
  deadline: number;
  /** The slot's lease, in ms (tests shorten it). */
  leaseMs?: number;
}

/**
 * A concurrency limit per plugin backend (`web-search:searxng`), shared by every worker through
 * Redis. redis-semaphore keeps the slots: a sorted set of leases whose holders renew them while
 * their work runs, so a crashed holder's slot expires. Its own waiting is a 10 ms poll, so waiting
 * is ours: a call that finds the backend saturated queues (never fails for that) and is woken by a
 * release published on a Redis channel, with a slow backstop attempt for expired leases. It gives
 * up only when its deadline passes (`timeout`) or its signal aborts (`aborted`). Waiting is in
 * arrival order within one worker; across workers the first to retry after a release wins.
 */
export class BackendLimiter {
  private readonly waiters = new SlotWaiters();
  private subscriber: Redis | undefined;
  private listening: Promise<unknown> | undefined;
  private readonly redis: RedisWithRelease;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    redis.defineCommand('switchyardReleaseSlot', { numberOfKeys: 1, lua: RELEASE });
    this.redis = redis as RedisWithRelease;
  }

  /** Runs `work` once one of the `limit` slots of backend `key` is free, waiting (queued) until then. */
  // eslint-disable-next-line max-params -- the runner's agreed call shape: key, limit, work, then the options object
  async run<T>(key: string, limit: number, work: () => Promise<T>, options: LimitedRunOptions): Promise<T> {
    const semaphore = await this.acquire(key, limit, options);
    try {
      return await work();
    } finally {
      await this.release({ key, limit, semaphore });
    }
  }

  /** Closes the subscriber connection this limiter opened. */
  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.listening = undefined;
    await subscriber?.quit().catch(() => subscriber.disconnect());
  }

  /** The name redis-semaphore is given for backend `key`. */
  private semaphoreName(key: string): string {
    return `${this.prefix}:backend-limit:${key}`;
  }

  /** The sorted set redis-semaphore keeps that semaphore in (it prefixes the name). */
  private keyOf(key: string): string {
    return `semaphore:${this.semaphoreName(key)}`;
  }

  private get channel(): string {
    return `${this.prefix}:backend-limit:released`;
  }

  private listen(): Promise<unknown> {
    if (this.listening) return this.listening;
    const subscriber = this.redis.duplicate();
    subscriber.on('error', (err: Error) => this.logger.warn({ err }, 'backend limit subscriber error'));
    subscriber.on('message', (_channel: string, key: string) => this.waiters.wakeOne(key));
    this.subscriber = subscriber;
    this.listening = subscriber.subscribe(this.channel);
    return this.listening;
  }

  private async acquire(key: string, limit: number, options: LimitedRunOptions): Promise<Semaphore> {
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const semaphore = new Semaphore(this.redis, this.semaphoreName(key), limit, {
      lockTimeout: leaseMs,
      refreshInterval: Math.max(1, Math.floor(leaseMs / 3)),
      acquireTimeout: leaseMs,
      acquireAttemptsLimit: 1,
      onLockLost: (err) => this.logger.warn({ err, backend: key }, 'backend slot lease lost while its work ran'),
    });
    if (options.signal.aborted) throw aborted(key);
    if (await semaphore.tryAcquire()) return semaphore;
    await this.listen();
    const place = this.waiters.join(key);
    try {
      for (;;) {
        const woken = place.next();
        if (await semaphore.tryAcquire()) break;
        await waitFor(woken, { key, ...options, backstopMs: Math.min(BACKSTOP_MS, leaseMs / 2) });
      }
    } finally {
      place.leave();
    }
    // More slots may be free (several releases at once, expired leases): let the next waiter try too.
    this.waiters.wakeOne(key);
    return semaphore;
  }

  private async release({ key, limit, semaphore }: { key: string; limit: number; semaphore: Semaphore }): Promise<void> {
    semaphore.stopRefresh();
    try {
      await this.redis.switchyardReleaseSlot(this.keyOf(key), semaphore.identifier, limit, this.channel, key);
    } catch (err) {
      // The lease expires on its own; the work's result matters more than a prompt release.
      this.logger.warn({ err, backend: key }, 'backend slot release failed');
    }
  }
}

function aborted(key: string): UpstreamError {
  return new UpstreamError({ kind: 'aborted', provider: key, message: `the call to ${key} was cancelled while it waited for a free slot` });
}

/** Resolves on a wake-up or the backstop; rejects when the deadline passes or the signal aborts. */
function waitFor(woken: Promise<void>, { key, signal, deadline, backstopMs }: LimitedRunOptions & { key: string; backstopMs: number }): Promise<void> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) {
    return Promise.reject(new UpstreamError({ kind: 'timeout', provider: key, message: `${key} had no free slot before the deadline` }));
  }
  if (signal.aborted) return Promise.reject(aborted(key));
  return new Promise<void>((resolve, reject) => {
    const done = (outcome: () => void) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    const onAbort = () => done(() => reject(aborted(key)));
    // Never past the deadline: the attempt after it either finds a slot or reports the timeout.
    const timer = setTimeout(() => done(resolve), Math.min(backstopMs * (0.5 + Math.random() / 2), remaining));
    signal.addEventListener('abort', onAbort, { once: true });
    void woken.then(() => done(resolve));
  });
}
