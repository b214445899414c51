import type { Logger } from 'pino';
import type { Config } from '../config/schema';
import type { Queues } from '../queue/queues';
import type { Db } from '../store/db';
import { AsyncJobRepository } from '../store/async-jobs';
import { AsyncJobFinisher } from './job-finisher';
import { AsyncJobStore } from './job-store';

/** The connection and settings async jobs are built from: their records live in PostgreSQL. */
export interface AsyncJobConnections {
  db: Db;
  config: Pick<Config, 'asyncJobs'>;
}

/** The worker's side: the process's store of async jobs, the webhooks queue and the retry settings. */
export interface AsyncJobFinisherDeps {
  asyncJobs: AsyncJobStore;
  queues: Pick<Queues, 'webhooks'>;
  logger: Logger;
  config: Pick<Config, 'asyncJobs'>;
}

/** The store of async jobs, as every process of this configuration reads and writes it. */
export function asyncJobStore({ db, config }: AsyncJobConnections): AsyncJobStore {
  return new AsyncJobStore(new AsyncJobRepository(db), config.asyncJobs.resultTtlSeconds);
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
