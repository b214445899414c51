import type { Logger } from 'pino';
import type { Config } from '../config/schema';
import type { Queues } from '../queue/queues';
import type { RedisClient } from '../queue/redis';
import { AsyncJobFinisher } from './job-finisher';
import { AsyncJobStore } from './job-store';

/** The connections and settings async jobs are built from. */
export interface AsyncJobConnections {
  redis: RedisClient;
  config: Pick<Config, 'redisPrefix' | 'asyncJobs'>;
}

/** The worker's side: the process's store of async jobs, the webhooks queue and the retry settings. */
export interface AsyncJobFinisherDeps {
  asyncJobs: AsyncJobStore;
  queues: Pick<Queues, 'webhooks'>;
  logger: Logger;
  config: Pick<Config, 'asyncJobs'>;
}

/** The store of async jobs, as every process of this configuration reads and writes it. */
export function asyncJobStore({ redis, config }: AsyncJobConnections): AsyncJobStore {
  return new AsyncJobStore(redis, config.redisPrefix, config.asyncJobs.resultTtlSeconds);
}

/**
 * The worker's side: stores how async jobs ended and queues their webhooks, retried with exponential
 * backoff (WEBHOOK_ATTEMPTS, WEBHOOK_BACKOFF_MS). One webhook job per async job (job id = request id).
 */
export function asyncJobFinisher({ asyncJobs, queues, logger, config }: AsyncJobFinisherDeps): AsyncJobFinisher {
  const { webhookAttempts, webhookBackoffMs } = config.asyncJobs;
  return new AsyncJobFinisher({
    store: asyncJobs,
    logger,
    enqueueWebhook: async (job) => {
      await queues.webhooks.add('deliver', job, { jobId: job.requestId, attempts: webhookAttempts, backoff: { type: 'exponential', delay: webhookBackoffMs } });
    },
  });
}
