import type { Logger } from 'pino';
import { lazyChild } from '../logging/lazy-child';
import type { CompletionJob } from '../queue/payloads';
import { endedStatus, type JobOutcome, type WebhookDelivery } from '../domain/async-job';
import type { AsyncJobStore } from './job-store';
import { privacyPolicyOf } from '../domain/privacy-policy';

export interface FinisherDeps {
  store: AsyncJobStore;
  /** Queues the delivery of the job's webhook. */
  enqueueWebhook(job: { requestId: string; appId: string }): Promise<void>;
  logger: Logger;
}

/** How a run ended, as the worker knows it. */
export interface RunEnd {
  /** The answer or the failure, as a client waiting live would have been told. */
  ended: JobOutcome;
  /** The run was cancelled (its client's cancel, or its deadline). */
  aborted: boolean;
}

const PENDING: WebhookDelivery = { status: 'pending', attempts: 0, lastStatusCode: null, lastError: null, deliveredAt: null };

/**
 * Worker side of an async completion: where a synchronous run publishes its final reply, an async one
 * stores it (a domain result or failure, formatted by the API when read) and queues its webhook.
 */
export class AsyncJobFinisher {
  constructor(private readonly deps: FinisherDeps) {}

  /** Never throws: a failure to store is logged, the run itself is over. */
  async finish(job: CompletionJob, end: RunEnd): Promise<void> {
    const outcome = end.ended;
    const logger = lazyChild(this.deps.logger, { request_id: job.httpRequestId ?? job.requestId, log_id: job.requestId });
    const status = endedStatus(outcome, { aborted: end.aborted, pastDeadline: Date.now() >= job.deadline });
    const webhook = job.async?.webhookUrl ? PENDING : null;
    const { keepsAnswer } = privacyPolicyOf(job.privacyLevel);
    try {
      const stored = await this.deps.store.finish(
        { id: job.requestId, appId: job.appId },
        { status, outcome: keepsAnswer ? outcome : null, webhook, model: 'result' in outcome ? outcome.result.model.model : null },
      );
      // A job cancelled through the API keeps that status, and the caller knows: no webhook.
      if (stored !== status || !webhook) return;
      await this.deps.enqueueWebhook({ requestId: job.requestId, appId: job.appId });
    } catch (err) {
      logger.error({ err }, 'async job result not stored');
    }
  }
}
