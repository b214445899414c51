import { CLUSTER_SLOTS, slotOf, type KeySpace } from './key-space';
import { QUEUE_NAMES } from './names';

/** One shard of the completion queue: its BullMQ queue name and key prefix. */
export interface CompletionShard {
  index: number;
  name: string;
  prefix: string;
}

/** How many salts are tried per shard: enough to land within a few slots of the range's middle. */
const SALTS_TRIED = 1000;

/**
 * The hash tag of shard `index` of `count`: `c<index>.<salt>`, the salt chosen so that its slot is nearest
 * the middle of the shard's own 1/count of the 16,384 slots. A cluster splits its slots into even ranges
 * by default (`redis-cli --cluster create`), so the shards spread evenly over its masters whatever their
 * number divides (6 shards: two on each of 3 masters, three on each of 2), and a split a little uneven
 * changes nothing. Every process computes the same tags from the same count.
 */
export function shardTag(index: number, count: number): string {
  const middle = ((index + 0.5) * CLUSTER_SLOTS) / count;
  let best = { tag: `c${index}.0`, distance: Infinity };
  for (let salt = 0; salt < SALTS_TRIED; salt++) {
    const tag = `c${index}.${salt}`;
    const distance = Math.abs(slotOf(tag) - middle);
    if (distance < best.distance) best = { tag, distance };
  }
  return best.tag;
}

/**
 * The completion queue's shards. One shard is the queue `completions` under the deployment's prefix, as
 * on one Redis server by default; with more, shard i is `completions-<i>`, under a prefix with a hash tag
 * of its own on a cluster (so its keys, and its replies' channels, live on one master, and the shards on
 * all of them).
 */
export function completionShards(keys: KeySpace, count: number): CompletionShard[] {
  if (count <= 1) return [{ index: 0, name: QUEUE_NAMES.completions, prefix: keys.prefix }];
  return Array.from({ length: count }, (_, index) => ({ index, name: `${QUEUE_NAMES.completions}-${index}`, prefix: keys.tagged(shardTag(index, count)) }));
}

/** The shard of a request: by its id (a random UUID), so requests spread evenly. */
export function shardIndexOf(requestId: string, count: number): number {
  return count <= 1 ? 0 : slotOf(requestId) % count;
}

/** The queue a BullMQ queue name belongs to for operators' metrics: a completion shard counts as `completions`. */
export function queueLabel(name: string): string {
  return name.startsWith(`${QUEUE_NAMES.completions}-`) ? QUEUE_NAMES.completions : name;
}
