import { randomUUID } from 'node:crypto';
import type { KeySpace } from '../queue/key-space';
import type { RedisClient as Redis } from '../queue/redis';

interface PendingRead {
  appId: string;
  resolve(stamp: string): void;
  reject(err: unknown): void;
}

/**
 * A version stamp per Space, shared by every API and worker process through Redis, so that a change
 * of a Space's configuration applies to the very next request everywhere.
 *
 * A writer commits its change to PostgreSQL, then calls `bump`, then answers; the API reads the stamp
 * of every completion it accepts (or, for a Space with a rate limit that it has loaded, confirms the
 * stamp in the same script as the take: `RateLimiter.takeAtStamp`) and hands it to the worker inside the
 * job. A cache entry loaded at another stamp is loaded again (TtlCache), and since the stamp is read
 * before the database, what is loaded is never older than the stamp it is filed under. Stamps are random
 * rather than counters, so a Redis that lost its keys cannot bring an old stamp back.
 *
 * Reads made in the same turn of the event loop share one MGET (on a Redis Cluster, one per slot: each
 * Space's stamp has the Space as hash tag, next to its rate-limit windows): under load, one round trip
 * serves every request that arrived together, instead of one each. A lone read waits for no timer.
 */
/** Stamp keys kept at most; past it the map starts again (a process serves far fewer Spaces). */
const MAX_KEPT_KEYS = 10_000;

export class SpaceVersions {
  private pending: PendingRead[] = [];
  /** Each Space's stamp key, built once: every completion names it (`keyOf`). */
  private readonly stampKeys = new Map<string, string>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: KeySpace,
  ) {}

  /** The Space's current stamp ('' until its configuration first changes). */
  read(appId: string): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.pending.push({ appId, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  /** Marks the Spaces' configuration as changed; call after the change is committed. */
  async bump(appIds: readonly string[]): Promise<void> {
    if (appIds.length === 0) return;
    // One command per Space, not a pipeline: on a cluster the stamps live in different slots.
    await Promise.all(appIds.map((appId) => this.redis.set(this.keyOf(appId), randomUUID())));
  }

  private flush(): void {
    const reads = this.pending;
    this.pending = [];
    const groups = this.keys.bySlot([...new Set(reads.map((read) => this.keyOf(read.appId)))]);
    Promise.all(groups.map((keys) => this.redis.mget(...keys).then((values) => keys.map((key, i) => [key, values[i] ?? ''] as const)))).then(
      (found) => {
        const stamps = new Map(found.flat());
        for (const read of reads) read.resolve(stamps.get(this.keyOf(read.appId)) ?? '');
      },
      (err: unknown) => reads.forEach((read) => read.reject(err)),
    );
  }

  /** The Redis key of the Space's stamp (a script that must find the stamp unchanged reads it). */
  keyOf(appId: string): string {
    let key = this.stampKeys.get(appId);
    if (key === undefined) {
      if (this.stampKeys.size >= MAX_KEPT_KEYS) this.stampKeys.clear();
      key = `${this.keys.space(appId)}:space-version`;
      this.stampKeys.set(appId, key);
    }
    return key;
  }
}
