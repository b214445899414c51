import calculateSlot from 'cluster-key-slot';

/** A Redis Cluster's hash slots. */
export const CLUSTER_SLOTS = 16_384;

const hasHashTag = (text: string): boolean => /\{[^}]+\}/.test(text);

/**
 * Where a deployment's Redis keys live. Redis Cluster puts a key in the slot of its hash tag (the text
 * between its first `{` and the next `}`); a script's keys must share one slot.
 *
 * - `prefix`: the deployment's own keys and every queue but the completions (breakers, key revocations,
 *   webhooks, batches, ...): `{<REDIS_PREFIX>}` on a cluster, so they share one slot as BullMQ's scripts
 *   and ours need; `<REDIS_PREFIX>` on one server. None of them is written per completion.
 * - `space(appId)`: a Space's keys (rate-limit windows, configuration stamp, idempotency records), with
 *   the Space as hash tag: each Space's keys share a slot, and Spaces spread over the masters.
 * - the completion queue's shards have hash tags of their own (completion-shards.ts).
 *
 * A REDIS_PREFIX that already holds a hash tag keeps every key in that tag's slot.
 */
export class KeySpace {
  readonly prefix: string;

  constructor(
    /** REDIS_PREFIX as configured. */
    readonly base: string,
    readonly clustered: boolean,
  ) {
    this.prefix = clustered && !hasHashTag(base) ? `{${base}}` : base;
  }

  /** Whether keys can be given hash tags of their own (a cluster, and a prefix without a tag). */
  get spreads(): boolean {
    return this.clustered && !hasHashTag(this.base);
  }

  /** The prefix of a Space's keys, `<base>:{<app id>}` (the same on one server: one code path). */
  space(appId: string): string {
    return hasHashTag(this.base) ? `${this.base}:${appId}` : `${this.base}:{${appId}}`;
  }

  /** A prefix whose keys hash to the tag's slot (`<base>:{<tag>}`), or the deployment's where keys do not spread. */
  tagged(tag: string): string {
    return this.spreads ? `${this.base}:{${tag}}` : this.prefix;
  }

  /** Keys grouped so that each group's can go in one command: by slot on a cluster, all together on one server. */
  bySlot(keys: readonly string[]): string[][] {
    if (!this.clustered) return keys.length === 0 ? [] : [[...keys]];
    const groups = new Map<number, string[]>();
    for (const key of keys) {
      const slot = calculateSlot(key);
      const group = groups.get(slot);
      if (group) group.push(key);
      else groups.set(slot, [key]);
    }
    return [...groups.values()];
  }
}

/** The slot of a key or hash tag. */
export function slotOf(key: string): number {
  return calculateSlot(key);
}
