import { LRUCache } from 'lru-cache';

interface Entry<V> {
  value: Promise<V>;
  expiresAt: number;
  /** The configuration version the value was loaded at (see SpaceVersions); undefined when unversioned. */
  stamp: string | undefined;
}

export interface CacheLookup {
  /** A value loaded at another stamp is stale whatever its age: it is loaded again. */
  stamp?: string;
  now?: number;
}

/**
 * Reuses a loaded value for `ttlMs` in this process, and shares one load among concurrent callers.
 * Used on the request path for configuration (Spaces, models): a caller that knows the current
 * version stamp of what it asks for passes it, so a change is seen by the next request; the TTL
 * bounds how stale anything unstamped may get. At most `maxEntries` are kept, the least recently
 * used going first (lru-cache); the age is checked here, against the caller's clock.
 */
export class TtlCache<V> {
  private readonly entries: LRUCache<string, Entry<V>>;

  constructor(
    private readonly ttlMs: number,
    maxEntries = 10_000,
  ) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  get(key: string, load: () => Promise<V>, { stamp, now = Date.now() }: CacheLookup = {}): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > now && entry.stamp === stamp) return entry.value;
    const value = load();
    if (this.ttlMs > 0) {
      this.entries.set(key, { value, expiresAt: now + this.ttlMs, stamp });
      // A failed load leaves the cache, unless a newer load has taken its place meanwhile.
      value.catch(() => {
        if (this.entries.peek(key)?.value === value) this.entries.delete(key);
      });
    }
    return value;
  }
}
