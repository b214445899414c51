import IORedis from 'ioredis';
import { dropDatabase } from './test-database';

async function deleteKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new IORedis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export default async function globalTeardown(): Promise<void> {
  const name = process.env.SWITCHYARD_TEST_DATABASE;
  if (name && !process.env.KEEP_TEST_DATABASE) await dropDatabase(name);
  const prefix = process.env.REDIS_PREFIX;
  if (prefix?.startsWith('sytest_')) await deleteKeys(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
}
