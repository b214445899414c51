import { finishesWithinLoopTime } from '../domain/finishes-within';
import type { RedisClient as Redis } from '../queue/redis';
import { pingDb, type Db } from '../store/db';

export interface ReadinessReport {
  ready: boolean;
  checks: { postgres: 'ok' | string; redis: 'ok' | string };
}

const CHECK_TIMEOUT_MS = 2000;

async function check(probe: () => Promise<unknown>): Promise<'ok' | string> {
  try {
    if (!(await finishesWithinLoopTime(probe(), CHECK_TIMEOUT_MS))) throw new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`);
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
