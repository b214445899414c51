import { deleteKeysUnder } from '../../scripts/redis-keys';
import type { LocalRedisCluster } from './redis-cluster';
import { dropDatabase } from './test-database';

export default async function globalTeardown(): Promise<void> {
  const name = process.env.SWITCHYARD_TEST_DATABASE;
  if (name && !process.env.KEEP_TEST_DATABASE) await dropDatabase(name);
  const prefix = process.env.REDIS_PREFIX;
  if (prefix?.startsWith('sytest_')) await deleteKeysUnder(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
  await (globalThis as { switchyardTestCluster?: LocalRedisCluster }).switchyardTestCluster?.stop();
}
