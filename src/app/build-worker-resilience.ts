import { RedisCircuitBreakers } from '../resilience/circuit-breakers';
import type { Resilience } from '../resilience/resilience';
import { RetryBudget } from '../resilience/retry-budget';
import type { WorkerServices } from '../../workers/worker-services';

export interface WorkerResilience {
  resilience: Resilience;
  /** Subscribes to breaker changes and loads the open breakers; resolves once they are known. */
  start(): Promise<void>;
  stop(): void;
}

/** One worker process's breakers (shared with the others through Redis), retry budget and timeouts. */
export function workerResilience(services: WorkerServices): WorkerResilience {
  const { config, redis, logger } = services;
  const breakers = new RedisCircuitBreakers(
    { redis, subscriber: services.dedicatedRedis(), prefix: config.redisPrefix, logger },
    {
      minFailures: config.breakerMinFailures,
      failureRatio: config.breakerFailureRatio,
      windowMs: config.breakerWindowMs,
      cooldownMs: config.breakerCooldownMs,
      maxCooldownMs: config.breakerMaxCooldownMs,
    },
  );
  return {
    resilience: {
      breakers,
      budget: new RetryBudget({ ratio: config.retryBudgetRatio, minRetries: config.retryBudgetMinRetries }),
      timeouts: { firstByteMs: config.upstreamFirstByteTimeoutMs, callMs: config.upstreamTimeoutMs },
    },
    start: () => breakers.start(),
    stop: () => breakers.stop(),
  };
}
