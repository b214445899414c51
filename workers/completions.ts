import type { Job, Processor } from 'bullmq';
import { privacyPolicyOf } from '../src/domain/privacy-policy';
import { maskedJob } from '../src/pipeline/privacy';
import type { CompletionJob } from '../src/queue/payloads';
import type { CompletionWorker } from './worker-services';

/**
 * BullMQ's side of a completion job: the job's data to the runner, and what the finished job leaves for
 * bull-board. A kept job (one in COMPLETION_JOBS_KEPT_ONE_IN) whose level masks content keeps its request
 * masked like its log; one removed as it completes keeps nothing, and is not rewritten.
 */
export function completionProcessor(completions: CompletionWorker): Processor {
  return async (job: Job<CompletionJob>) => {
    const summary = await completions.runs.run(job.data);
    if (privacyPolicyOf(job.data.privacyLevel).keptJob === 'masked' && job.opts.removeOnComplete !== true) await job.updateData(maskedJob(job.data));
    return summary;
  };
}
