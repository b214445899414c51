import IORedis from 'ioredis';
import { createDb, type Db } from '../../src/store/db';
import { migrate } from '../../src/store/migrations';
import { createDatabase, databaseUrlFor, dropDatabase, TEST_REDIS_URL } from '../../test/helpers/test-database';

/**
 * The suite's throwaway database and Redis prefix. The database is migrated but holds no catalog: every row's
 * Space uses custom models of its own organization, pointed at the simulator.
 */
export interface ReliabilityEnvironment {
  databaseName: string;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  db: Db;
  redis: IORedis;
  destroy(): Promise<void>;
}

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

export async function createEnvironment(suffix: string): Promise<ReliabilityEnvironment> {
  const databaseName = `switchyard_reliability_${suffix}`;
  const databaseUrl = databaseUrlFor(databaseName);
  const redisPrefix = `syreliability_${suffix}`;
  const redis = new IORedis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 });
  let db: Db | undefined;
  const destroy = async () => {
    await db?.$disconnect().catch(() => undefined);
    await dropDatabase(databaseName);
    await redis.connect().catch(() => undefined);
    const keys = await keysUnder(redis, redisPrefix);
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    redis.disconnect();
  };
  await createDatabase(databaseName);
  try {
    await migrate(databaseUrl);
    db = createDb(databaseUrl, 4);
    await redis.connect();
    return { databaseName, databaseUrl, redisUrl: TEST_REDIS_URL, redisPrefix, db, redis, destroy };
  } catch (err) {
    await destroy().catch(() => undefined);
    throw err;
  }
}
