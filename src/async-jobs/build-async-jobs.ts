import type { Infrastructure } from '../services/container';
import { AsyncJobFinisher } from './job-finisher';
import { AsyncJobStore } from './job-store';

/** The store of async jobs, as every process of this configuration reads and writes it. */
export function asyncJobStore({ redis, config }: Pick<Infrastructure, 'redis' | 'config'>): AsyncJobStore {
  return new AsyncJobStore(redis, config.redisPrefix, config.asyncJobs.resultTtlSeconds);
}

/**
 * The worker's side: stores how async jobs ended and queues their webhooks, retried with exponential
 * backoff (WEBHOOK_ATTEMPTS, WEBHOOK_BACKOFF_MS). One webhook job per async job (job id = request id).
 */
export function asyncJobFinisher(infra: Pick<Infrastructure, 'redis' | 'config' | 'queues' | 'logger'>): AsyncJobFinisher {
  const { webhookAttempts, webhookBackoffMs } = infra.config.asyncJobs;
  return new AsyncJobFinisher({
    store: asyncJobStore(infra),
    logger: infra.logger,
    enqueueWebhook: async (job) => {
      await infra.queues.webhooks.add('deliver', job, { jobId: job.requestId, attempts: webhookAttempts, backoff: { type: 'exponential', delay: webhookBackoffMs } });
    },
  });
}
