import type { RedisClient } from '../queue/redis';
import type { AuthContext } from '../auth/auth-context';
import { cancelChannel } from '../queue/replies';
import { ApiError } from '../errors/api-error';
import type { CompletionQueue } from '../queue/completion-queue';
import type { AsyncJobRecord, JobStatus } from '../domain/async-job';
import type { AsyncJobStore } from './job-store';

export interface JobServiceDeps {
  store: AsyncJobStore;
  queue: Pick<CompletionQueue, 'getJobState'>;
  /** Publishes on the workers' cancellation channel. */
  publisher: RedisClient;
  prefix: string;
}

/** An async job as read now: its record, and its status with `in_progress` told apart from `queued`. */
export interface JobReading {
  record: AsyncJobRecord;
  status: JobStatus;
}

/** What a job whose worker died answers: as the synchronous call's liveness check does. */
function lost(record: AsyncJobRecord, message: string): JobReading {
  const failure = new ApiError('internal_error', message).toFailure();
  return { record: { ...record, status: 'failed', outcome: { failure } }, status: 'failed' };
}

/** `GET /v1/jobs/{id}` and `POST /v1/jobs/{id}/cancel`: async jobs of the caller's organization. */
export class JobService {
  constructor(private readonly deps: JobServiceDeps) {}

  async get(auth: AuthContext, id: string): Promise<JobReading> {
    const record = await this.find(auth, id);
    if (record.status !== 'queued') return { record, status: record.status };
    const state = await this.deps.queue.getJobState(id);
    if (state === 'active') return { record, status: 'in_progress' };
    if (state === 'failed') return lost(record, 'The worker running this job failed.');
    if (state === 'completed' || state === 'unknown') {
      // The worker stores the end before BullMQ marks the job done: read again, it may have ended just now.
      const again = await this.find(auth, id);
      return again.status === 'queued' ? lost(again, 'The job was lost.') : { record: again, status: again.status };
    }
    return { record, status: 'queued' };
  }

  /**
   * Cancels a job that has not ended: it is marked `cancelled` at once, and the worker running it (or the
   * one that takes it from the queue) stops it through the cancellation channel, calling no upstream
   * more. A job that ended answers 409.
   */
  async cancel(auth: AuthContext, id: string): Promise<JobReading> {
    await this.find(auth, id);
    const before = await this.deps.store.cancel(id);
    if (before === null) throw ApiError.notFound('Job', 'job_id');
    if (before !== 'queued')
      throw new ApiError('invalid_state_transition', `This job has already ended (${before}); only a queued or running job can be cancelled.`, 'job_id');
    await this.deps.publisher.publish(cancelChannel(this.deps.prefix), id);
    const record = await this.find(auth, id);
    return { record, status: record.status };
  }

  /** Another organization's job answers exactly like an unknown one. */
  private async find(auth: AuthContext, id: string): Promise<AsyncJobRecord> {
    const record = await this.deps.store.get(id);
    if (!record || record.orgId !== auth.orgId) throw ApiError.notFound('Job', 'job_id');
    return record;
  }
}
