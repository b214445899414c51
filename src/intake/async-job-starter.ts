import type { Logger } from 'pino';
import { ENQUEUE_TIMEOUT_MS, notQueuedWithin, redisAwayError } from './completion-gateway';
import type { CompletionQueue } from '../queue/completion-queue';
import type { CompletionJobOptions } from '../queue/kept-jobs';
import type { CompletionJob } from '../queue/payloads';
import type { AsyncJobRecord } from '../domain/async-job';
import type { AsyncJobStore } from '../async-jobs/job-store';

export interface StarterDeps {
  store: AsyncJobStore;
  queue: Pick<CompletionQueue, 'addWithin'>;
  /** Tells workers to stop a job given up on that was queued too late (the gateway's cancel). */
  cancel(requestId: string): void;
  logger: Logger;
}

/**
 * API side of an async completion: record the job as queued, then queue it. No process waits for its
 * replies; the worker that runs it stores how it ended. The record comes first, so the job can never
 * end before there is a record to end.
 */
export class AsyncJobStarter {
  constructor(private readonly deps: StarterDeps) {}

  /** `jobOptions`: as the intake decided them (kept-jobs.ts). */
  async start(job: CompletionJob, jobOptions: CompletionJobOptions): Promise<AsyncJobRecord> {
    const record: AsyncJobRecord = {
      id: job.requestId,
      orgId: job.orgId,
      appId: job.appId,
      status: 'queued',
      createdAt: Math.floor(job.receivedAt / 1000),
      finishedAt: null,
      model: job.request.model ?? null,
      webhookUrl: job.async?.webhookUrl ?? null,
      outcome: null,
      webhook: null,
    };
    const { store, queue, logger } = this.deps;
    await store.create(record);
    const timeoutMs = ENQUEUE_TIMEOUT_MS;
    const problem = await queue.addWithin(job, jobOptions, { timeoutMs, tooLate: (requestId) => this.deps.cancel(requestId) }).then(
      (added) => {
        if (!added) logger.warn({ request_id: job.requestId, wait_ms: timeoutMs }, 'async completion not queued in time: answered 503');
        return added ? null : notQueuedWithin(timeoutMs);
      },
      (err: unknown) => {
        logger.error({ err, request_id: job.requestId }, 'could not queue async completion');
        return 'The completion queue is unavailable';
      },
    );
    if (problem) {
      await store.remove(job.requestId).catch(() => undefined);
      throw redisAwayError(problem);
    }
    return record;
  }
}
