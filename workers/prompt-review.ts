import type { Job } from 'bullmq';
import type { PromptReviewJob } from '../src/queue/payloads';
import type { ScreeningOutcome } from '../src/services/prompts/prompt-service';
import type { WorkerServices } from './worker-services';

export function promptReviewProcessor({ prompts, logger }: WorkerServices) {
  return async (job: Job<PromptReviewJob>): Promise<ScreeningOutcome> => {
    const outcome = await prompts.screenSubmission(job.data.promptId, job.data.publishedOn);
    logger.info({ job_id: job.id, prompt_id: job.data.promptId, outcome }, 'prompt screened');
    return outcome;
  };
}
