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
 * bounds how stale anything unstamped may get.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, load: () => Promise<V>, { stamp, now = Date.now() }: CacheLookup = {}): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > now && entry.stamp === stamp) return entry.value;
    const value = load();
    if (this.ttlMs > 0) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { value, expiresAt: now + this.ttlMs, stamp });
      // A failed load leaves the cache, unless a newer load has taken its place meanwhile.
      value.catch(() => {
        if (this.entries.get(key)?.value === value) this.entries.delete(key);
      });
    }
    return value;
  }
}
