import type { Job, Processor } from 'bullmq';
import { inJobSpan } from './job-trace';
import { markLoopOwner } from './loop-owner';
import { metrics } from './metrics';
import { tracingEnabled } from './tracing';

/** What the stall watchdog names a job by: its HTTP request id or log id when it is a request's, else the job id. */
function jobOwnerId(job: Job): string {
  const data = job.data as { httpRequestId?: unknown; requestId?: unknown } | null;
  const id = data?.httpRequestId ?? data?.requestId;
  return typeof id === 'string' ? id : `job ${job.id ?? '?'}`;
}

/** A queue's processor, timed per job (by outcome) and, with tracing on, run under the job's span. */
export function instrumented(queue: string, processor: Processor): Processor {
  const { jobDuration } = metrics();
  return async (job: Job, token?: string) => {
    markLoopOwner(jobOwnerId(job));
    const started = process.hrtime.bigint();
    let outcome = 'failed';
    try {
      const result: unknown = tracingEnabled() ? await inJobSpan(queue, job, () => processor(job, token)) : await processor(job, token);
      outcome = 'completed';
      return result;
    } finally {
      jobDuration.observe({ queue, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}
