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

/** The worker's side also queues webhooks and logs. */
export interface AsyncJobFinisherConnections extends AsyncJobConnections {
  queues: Pick<Queues, 'webhooks'>;
  logger: Logger;
}

/** The store of async jobs, as every process of this configuration reads and writes it. */
export function asyncJobStore({ redis, config }: AsyncJobConnections): AsyncJobStore {
  return new AsyncJobStore(redis, config.redisPrefix, config.asyncJobs.resultTtlSeconds);
}

/**
 * The worker's side: stores how async jobs ended and queues their webhooks, retried with exponential
 * backoff (WEBHOOK_ATTEMPTS, WEBHOOK_BACKOFF_MS). One webhook job per async job (job id = request id).
 */
export function asyncJobFinisher(infra: AsyncJobFinisherConnections): AsyncJobFinisher {
  const { webhookAttempts, webhookBackoffMs } = infra.config.asyncJobs;
  return new AsyncJobFinisher({
    store: asyncJobStore(infra),
    logger: infra.logger,
    enqueueWebhook: async (job) => {
      await infra.queues.webhooks.add('deliver', job, { jobId: job.requestId, attempts: webhookAttempts, backoff: { type: 'exponential', delay: webhookBackoffMs } });
    },
  });
}
