import { LRUCache } from 'lru-cache';

interface Entry<V> {
  value: Promise<V>;
  expiresAt: number;
  /** The configuration version the value was loaded at (see SpaceVersions); undefined when unversioned. */
  stamp: string | undefined;
  /** The loaded value, once the load has succeeded. */
  settled?: { value: V };
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
      const added: Entry<V> = { value, expiresAt: now + this.ttlMs, stamp };
      this.entries.set(key, added);
      value.then(
        (loaded) => {
          added.settled = { value: loaded };
        },
        // A failed load leaves the cache, unless a newer load has taken its place meanwhile.
        () => {
          if (this.entries.peek(key) === added) this.entries.delete(key);
        },
      );
    }
    return value;
  }

  /**
   * The value loaded last for `key` and the stamp it was loaded at, if its load has succeeded and its TTL
   * has not run out; nothing is loaded. Its stamp is not checked: the caller confirms it.
   */
  peek(key: string, now = Date.now()): { value: V; stamp: string | undefined } | null {
    const entry = this.entries.get(key);
    if (!entry?.settled || entry.expiresAt <= now) return null;
    return { value: entry.settled.value, stamp: entry.stamp };
  }
}
