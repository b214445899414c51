import { publishInOrder, subscribeInOrder, type RedisClient as Redis } from '../queue/redis';

/**
 * Tells every API process of the deployment that keys stopped being valid (revoked, or rotated to a new
 * secret), so each drops them from its authentication cache at once instead of after AUTH_CACHE_TTL_MS.
 * Messages carry the keys' hashes, never a secret. A process that misses a message (its subscription was
 * down) still drops the key when the cache entry ends, within AUTH_CACHE_TTL_MS.
 */
export class KeyRevocations {
  constructor(
    private readonly publisher: Redis,
    private readonly prefix: string,
  ) {}

  private get channel(): string {
    return `${this.prefix}:keys-revoked`;
  }

  /** Announces hashes of keys that no longer authenticate; call after the change is committed. */
  async announce(hashedKeys: readonly string[]): Promise<void> {
    for (const hashed of hashedKeys) await publishInOrder(this.publisher, this.channel, hashed);
  }

  /** Calls `forget` with each announced hash; `subscriber` is a connection of its own. */
  listen(subscriber: Redis, forget: (hashedKey: string) => void): Promise<void> {
    return subscribeInOrder(subscriber, [this.channel], forget);
  }
}
