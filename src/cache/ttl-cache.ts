interface Entry<V> {
  value: Promise<V>;
  expiresAt: number;
}

/**
 * Reuses a loaded value for `ttlMs` in this process, and shares one load among concurrent callers.
 * Used on the request path for configuration that may be a second or two stale (Spaces, models).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, load: () => Promise<V>, now = Date.now()): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > now) return entry.value;
    const value = load();
    if (this.ttlMs > 0) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { value, expiresAt: now + this.ttlMs });
      // A failed load leaves the cache, unless a newer load has taken its place meanwhile.
      value.catch(() => {
        if (this.entries.get(key)?.value === value) this.entries.delete(key);
      });
    }
    return value;
  }
}
