import type { RedisClient as Redis } from '../queue/redis';
import { pingDb, type Db } from '../store/db';

export interface ReadinessReport {
  ready: boolean;
  checks: { postgres: 'ok' | string; redis: 'ok' | string };
}

const CHECK_TIMEOUT_MS = 2000;

async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function check(probe: () => Promise<unknown>): Promise<'ok' | string> {
  try {
    await within(probe(), CHECK_TIMEOUT_MS);
    return 'ok';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** PostgreSQL and Redis both answer. */
export async function checkReadiness(db: Db, redis: Redis): Promise<ReadinessReport> {
  const [postgres, redisStatus] = await Promise.all([check(() => pingDb(db)), check(() => redis.ping())]);
  return { ready: postgres === 'ok' && redisStatus === 'ok', checks: { postgres, redis: redisStatus } };
}
