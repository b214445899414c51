import { Cluster } from 'ioredis';
import type { RedisClient } from '../../src/queue/redis';

/** The keys matching a pattern on one server, or on every master of a cluster (KEYS asks one node). */
export async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  if (!(redis instanceof Cluster)) return redis.keys(pattern);
  return (await Promise.all(redis.nodes('master').map((node) => node.keys(pattern)))).flat();
}
