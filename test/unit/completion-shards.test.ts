import { randomUUID } from 'node:crypto';
import { completionShards, queueLabel, shardIndexOf, shardTag } from '../../src/queue/completion-shards';
import { CLUSTER_SLOTS, KeySpace, slotOf } from '../../src/queue/key-space';
import { completionShardCount } from '../../src/config/redis-cluster';

/** Which of `masters` equal slot ranges (a cluster's default split) holds a slot. */
const masterOf = (slot: number, masters: number) => Math.floor((slot * masters) / CLUSTER_SLOTS);

describe('completion queue shards', () => {
  it('is one queue, `completions` under the prefix, on one Redis server by default', () => {
    const keys = new KeySpace('switchyard', false);
    expect(completionShardCount({ redisClusterNodes: [] })).toBe(1);
    expect(completionShards(keys, 1)).toEqual([{ index: 0, name: 'completions', prefix: 'switchyard' }]);
  });

  it('is 6 shards on a cluster by default, each with a hash tag of its own, two on each master of a 3-master cluster', () => {
    const keys = new KeySpace('switchyard', true);
    const count = completionShardCount({ redisClusterNodes: [{ host: 'a', port: 1 }] });
    expect(count).toBe(6);
    const shards = completionShards(keys, count);
    expect(shards.map((shard) => shard.name)).toEqual(['completions-0', 'completions-1', 'completions-2', 'completions-3', 'completions-4', 'completions-5']);
    const slots = shards.map((shard) => slotOf(`${shard.prefix}:${shard.name}:wait`));
    expect(new Set(slots).size).toBe(6);
    for (const masters of [2, 3, 6]) {
      const perMaster = Array.from({ length: masters }, (_, m) => slots.filter((slot) => masterOf(slot, masters) === m).length);
      expect(perMaster).toEqual(Array.from({ length: masters }, () => 6 / masters));
    }
  });

  it("puts each shard's slot near the middle of its part of the slots, the same in every process", () => {
    for (const count of [2, 3, 6, 12]) {
      for (let index = 0; index < count; index++) {
        const middle = ((index + 0.5) * CLUSTER_SLOTS) / count;
        expect(Math.abs(slotOf(shardTag(index, count)) - middle)).toBeLessThan(CLUSTER_SLOTS / count / 4);
        expect(shardTag(index, count)).toBe(shardTag(index, count));
      }
    }
  });

  it('spreads random request ids evenly over the shards', () => {
    const counts = [0, 0, 0, 0, 0, 0];
    for (let i = 0; i < 6000; i++) counts[shardIndexOf(randomUUID(), 6)] += 1;
    for (const n of counts) expect(Math.abs(n - 1000)).toBeLessThan(200);
  });

  it('counts every shard as the `completions` queue for operators', () => {
    expect(queueLabel('completions-3')).toBe('completions');
    expect(queueLabel('completions')).toBe('completions');
    expect(queueLabel('batch-lines')).toBe('batch-lines');
  });
});

describe('KeySpace', () => {
  it("tags the deployment's prefix on a cluster, and a Space's keys with the Space everywhere", () => {
    const appId = randomUUID();
    const cluster = new KeySpace('switchyard', true);
    expect(cluster.prefix).toBe('{switchyard}');
    expect(cluster.space(appId)).toBe(`switchyard:{${appId}}`);
    expect(slotOf(`${cluster.space(appId)}:ratelimit:1`)).toBe(slotOf(appId));
    const single = new KeySpace('switchyard', false);
    expect(single.prefix).toBe('switchyard');
    expect(single.space(appId)).toBe(`switchyard:{${appId}}`);
  });

  it('keeps every key in the slot of a prefix that has a hash tag of its own', () => {
    const keys = new KeySpace('{acme}', true);
    expect(keys.prefix).toBe('{acme}');
    expect(slotOf(`${keys.space(randomUUID())}:x`)).toBe(slotOf('acme'));
    expect(completionShards(keys, 6).every((shard) => slotOf(`${shard.prefix}:${shard.name}:wait`) === slotOf('acme'))).toBe(true);
  });

  it('groups keys by slot on a cluster (one MGET each), and all together on one server', () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const keysOf = (space: KeySpace) => ids.flatMap((id) => [`${space.space(id)}:a`, `${space.space(id)}:b`]);
    expect(new KeySpace('s', false).bySlot(keysOf(new KeySpace('s', false)))).toHaveLength(1);
    const cluster = new KeySpace('s', true);
    const groups = cluster.bySlot(keysOf(cluster));
    expect(groups).toHaveLength(3);
    expect(groups.every((group) => group.length === 2 && new Set(group.map(slotOf)).size === 1)).toBe(true);
  });
});
