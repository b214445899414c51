import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Config } from '../config/schema';
import { redisProblem } from '../queue/redis-state';
import { databaseProblem } from '../store/database-state';

/** Pause between two looks while something is not ready yet, in ms. */
const RETRY_EVERY_MS = 1000;

/** A start-up check that failed for good: its message is the one line the process exits with. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

async function problemsNow(config: Readonly<Config>): Promise<string[]> {
  const found = await Promise.all([databaseProblem(config.databaseUrl), redisProblem({ url: config.redisUrl, clusterNodes: config.redisClusterNodes })]);
  return found.filter((problem): problem is string => problem !== null);
}

/**
 * Before anything starts: waits until PostgreSQL answers with every migration applied and Redis answers,
 * for at most `STARTUP_WAIT_MS` (containers start in any order). It logs once what it waits for; when
 * time is up it throws a StartupError naming each cause and its fix, in one line.
 */
export async function waitForDependencies(config: Readonly<Config>, logger: Logger): Promise<void> {
  const deadline = Date.now() + config.startupWaitMs;
  let said = '';
  for (;;) {
    const problems = await problemsNow(config);
    if (problems.length === 0) return;
    const seconds = Math.round(config.startupWaitMs / 1000);
    if (Date.now() + RETRY_EVERY_MS > deadline)
      throw new StartupError(`Switchyard cannot start: ${problems.join('; ')}${seconds > 0 ? ` (waited ${seconds} s, STARTUP_WAIT_MS)` : ''}.`);
    const now = problems.join('; ');
    if (now !== said) logger.warn({ wait_ms: config.startupWaitMs }, `waiting for ${now}`);
    said = now;
    await sleep(RETRY_EVERY_MS);
  }
}
