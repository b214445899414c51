import type IORedis from 'ioredis';
import { keysUnder } from '../../../scripts/redis-keys';

/** The text a key holds, whatever its Redis type (strings, hashes, lists, sets, sorted sets, streams). */
async function contentOf(redis: IORedis, key: string): Promise<string> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return (await redis.get(key)) ?? '';
    case 'hash':
      return Object.values(await redis.hgetall(key)).join('\n');
    case 'list':
      return (await redis.lrange(key, 0, -1)).join('\n');
    case 'set':
      return (await redis.smembers(key)).join('\n');
    case 'zset':
      return (await redis.zrange(key, 0, -1)).join('\n');
    case 'stream':
      return JSON.stringify(await redis.xrange(key, '-', '+'));
    default:
      return '';
  }
}

/** Keys under the prefix whose content contains `marker` (e.g. text only level-3 requests carried). */
export async function keysHolding(redis: IORedis, prefix: string, marker: string): Promise<string[]> {
  const holding: string[] = [];
  for (const key of await keysUnder(redis, prefix)) {
    if ((await contentOf(redis, key)).includes(marker)) holding.push(key);
  }
  return holding;
}
