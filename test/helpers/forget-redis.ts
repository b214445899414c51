import type { RedisClient } from '../../src/queue/redis';

/**
 * What a Redis restart without persistence (or a failover that lost writes) does to one deployment:
 * every key under its prefix is deleted (queues, jobs, locks, caches), one key at a time. Scans one
 * node: on a cluster, call it with each master's client. The prefix may be hash-tagged (`{...}`); its
 * keys are matched either way. Answers how many went.
 */
export async function forgetRedis(redis: RedisClient, prefix: string): Promise<number> {
  const pattern = `*${prefix.replace(/[{}]/g, '')}*`;
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) deleted += await redis.del(key);
  } while (cursor !== '0');
  return deleted;
}
