import { randomUUID } from 'node:crypto';
import type { RedisClient as Redis } from '../queue/redis';

/**
 * A version stamp per Space, shared by every API and worker process through Redis, so that a change
 * of a Space's configuration applies to the very next request everywhere.
 *
 * A writer commits its change to PostgreSQL, then calls `bump`, then answers; the API reads the stamp
 * of every completion it accepts and hands it to the worker inside the job. A cache entry loaded at
 * another stamp is loaded again (TtlCache), and since the stamp is read before the database, what is
 * loaded is never older than the stamp it is filed under. Stamps are random rather than counters, so
 * a Redis that lost its keys cannot bring an old stamp back.
 */
export class SpaceVersions {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** The Space's current stamp ('' until its configuration first changes). */
  async read(appId: string): Promise<string> {
    return (await this.redis.get(this.key(appId))) ?? '';
  }

  /** Marks the Spaces' configuration as changed; call after the change is committed. */
  async bump(appIds: readonly string[]): Promise<void> {
    if (appIds.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const appId of appIds) pipeline.set(this.key(appId), randomUUID());
    const results = await pipeline.exec();
    const failed = results?.find(([err]) => err !== null);
    if (failed?.[0]) throw failed[0];
  }

  private key(appId: string): string {
    return `${this.prefix}:space-version:${appId}`;
  }
}
