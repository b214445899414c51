import { migrate } from '../../src/store/migrations';
import { seedCatalog } from '../../prisma/seed-catalog';
import { startRedisCluster, type LocalRedisCluster } from './redis-cluster';
import { createDatabase, databaseUrlFor, uniqueSuffix, TEST_REDIS_URL } from './test-database';

/** One fresh database and Redis prefix per test run; test files share them and isolate by organization. */
export default async function globalSetup(): Promise<void> {
  const suffix = uniqueSuffix();
  const name = `switchyard_test_${suffix}`;
  await createDatabase(name);
  const databaseUrl = databaseUrlFor(name);
  await migrate(databaseUrl);
  await seedCatalog(databaseUrl);
  process.env.SWITCHYARD_TEST_DATABASE = name;
  process.env.DATABASE_URL = databaseUrl;
  process.env.REDIS_URL = TEST_REDIS_URL;
  process.env.REDIS_PREFIX = `sytest_${suffix}`;
  process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
  process.env.AUTH_CACHE_TTL_MS = '0';
  // TEST_REDIS_CLUSTER=1: every test context (and every process a test starts) on a local three-node Redis Cluster.
  if (process.env.TEST_REDIS_CLUSTER === '1') {
    const cluster = await startRedisCluster();
    (globalThis as { switchyardTestCluster?: LocalRedisCluster }).switchyardTestCluster = cluster;
    process.env.REDIS_CLUSTER_NODES = cluster.nodesEnv;
  }
}
