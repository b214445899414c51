import IORedis from 'ioredis';
import { createDb, type Db } from '../../../src/store/db';
import { migrate } from '../../../src/store/migrations';
import { deleteKeysUnder } from '../../../scripts/redis-keys';
import { createDatabase, databaseUrlFor, dropDatabase, TEST_REDIS_URL } from '../../../test/helpers/test-database';

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

export async function createEnvironment(suffix: string): Promise<ReliabilityEnvironment> {
  const databaseName = `switchyard_reliability_${suffix}`;
  const databaseUrl = databaseUrlFor(databaseName);
  const redisPrefix = `syreliability_${suffix}`;
  const redis = new IORedis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 });
  let db: Db | undefined;
  const destroy = async () => {
    await db?.$disconnect().catch(() => undefined);
    await dropDatabase(databaseName);
    redis.disconnect();
    await deleteKeysUnder(TEST_REDIS_URL, redisPrefix);
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
