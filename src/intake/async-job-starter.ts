import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { retentionFor, type Retention } from './completion-gateway';
import { ApiError } from '../errors/api-error';
import type { CompletionJob } from '../queue/payloads';
import type { AsyncJobRecord } from '../domain/async-job';
import type { AsyncJobStore } from '../async-jobs/job-store';

export interface StarterDeps {
  store: AsyncJobStore;
  queue: Queue<CompletionJob>;
  logger: Logger;
}

/**
 * API side of an async completion: record the job as queued, then queue it. No process waits for its
 * replies; the worker that runs it stores how it ended. The record comes first, so the job can never
 * end before there is a record to end.
 */
export class AsyncJobStarter {
  constructor(private readonly deps: StarterDeps) {}

  async start(job: CompletionJob, retention: Retention): Promise<AsyncJobRecord> {
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
    try {
      await store.create(record);
      await queue.add('completion', job, { jobId: job.requestId, attempts: 1, ...retentionFor(retention) });
    } catch (err) {
      logger.error({ err, request_id: job.requestId }, 'could not queue async completion');
      await store.remove(job.requestId).catch(() => undefined);
      throw new ApiError('service_unavailable', 'The completion queue is unavailable; try again shortly.');
    }
    return record;
  }
}
