import type { AsyncJobRecord, JobOutcome, StoredJobStatus, WebhookDelivery } from '../domain/async-job';
import type { AsyncJobRepository, NewAsyncJob } from '../store/async-jobs';

export interface FinishedJob {
  status: StoredJobStatus;
  /** null: nothing of the answer is kept (privacy level 3). */
  outcome: JobOutcome | null;
  /** The delivery state to start with when a webhook is due, else null. */
  webhook: WebhookDelivery | null;
  /** The model that answered, which replaces the one the request named (or null, for automatic choice); null keeps it. */
  model: string | null;
}

/**
 * Async jobs' records, kept in PostgreSQL so that what Redis forgets (a restart without persistence, a
 * failover that lost writes) does not take a finished job's answer with it. A job stays readable for
 * `ttlSeconds` after it was accepted, and again after it ended; past that it reads as unknown, and the
 * workers' sweep deletes it.
 */
export class AsyncJobStore {
  constructor(
    private readonly jobs: AsyncJobRepository,
    private readonly ttlSeconds: number,
  ) {}

  private expiryFrom(now: number): Date {
    return new Date(now + this.ttlSeconds * 1000);
  }

  async create(record: NewAsyncJob, now = Date.now()): Promise<void> {
    await this.jobs.create(record, this.expiryFrom(now));
  }

  get(id: string, now = Date.now()): Promise<AsyncJobRecord | null> {
    return this.jobs.find(id, new Date(now));
  }

  /** Forgets a job whose queueing failed. */
  async remove(id: string): Promise<void> {
    await this.jobs.delete(id);
  }

  /** The status the job had before (null: no such job); a queued one is cancelled now. */
  async cancel(id: string, now = Date.now()): Promise<StoredJobStatus | null> {
    if (await this.jobs.cancelQueued(id, new Date(now))) return 'queued';
    // Not queued: an ended job's status never changes again, so reading it now answers what it was.
    return (await this.jobs.find(id, new Date(now)))?.status ?? null;
  }

  /** The status the job ends with (a job cancelled meanwhile stays cancelled); null when it expired meanwhile. */
  finish(job: { id: string; appId: string }, finished: FinishedJob, now = Date.now()): Promise<StoredJobStatus | null> {
    const at = new Date(now);
    return this.jobs.finishQueued(job.id, { ...finished, finishedAt: at }, { now: at, expiresAt: this.expiryFrom(now) });
  }

  /** Drops the answers the Space's jobs keep (their status stays): its privacy level rose to 3. */
  async withholdSpace(appId: string): Promise<void> {
    await this.jobs.dropOutcomes(appId);
  }

  async setWebhook(id: string, delivery: WebhookDelivery, now = Date.now()): Promise<void> {
    await this.jobs.setWebhook(id, delivery, new Date(now));
  }

  /** Deletes the records past their TTL (they already read as unknown); answers how many. */
  sweep(now = Date.now()): Promise<number> {
    return this.jobs.deleteExpired(new Date(now));
  }
}
