// The one way a throwaway run (tests, benchmarks, the fault suite, the quick-start check) finds and removes
// its Redis keys.
import IORedis from 'ioredis';

/** Every key under the prefix (SCAN, so Redis is never blocked). */
export async function keysUnder(redis: IORedis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/**
 * Deletes every key under a run's own prefix (tests, benchmarks, the fault suite, the quick-start check),
 * never anything else: Redis is shared, so it is never flushed. Returns how many keys went.
 */
export async function deleteKeysUnder(redisUrl: string, prefix: string): Promise<number> {
  if (prefix === '') throw new Error('refusing to delete every key: the prefix is empty');
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 2 });
  try {
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) deleted += await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    return deleted;
  } finally {
    redis.disconnect();
  }
}

// `tsx scripts/redis-keys.ts <redis-url> <prefix>` deletes a throwaway run's keys (scripts/check-quickstart.sh).
if (require.main === module) {
  const [url, prefix] = process.argv.slice(2);
  if (!url || !prefix) {
    process.stderr.write('usage: tsx scripts/redis-keys.ts <redis-url> <prefix>\n');
    process.exit(2);
  }
  deleteKeysUnder(url, prefix).catch((err: unknown) => {
    process.stderr.write(`could not delete Redis keys under ${prefix}: ${String(err)}\n`);
    process.exit(1);
  });
}
