import type { Job, Processor } from 'bullmq';
import { inJobSpan } from './job-trace';
import { metrics } from './metrics';
import { tracingEnabled } from './tracing';

/** A queue's processor, timed per job (by outcome) and, with tracing on, run under the job's span. */
export function instrumented(queue: string, processor: Processor): Processor {
  const { jobDuration } = metrics();
  return async (job: Job, token?: string) => {
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
