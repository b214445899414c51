/**
 * A Map that holds at most `max` entries: setting a key makes it the newest, and past `max` the oldest
 * goes. A bounded memory for what one process learns per key or address.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    this.delete(key);
    if (this.size >= this.max) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}
