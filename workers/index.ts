import { Worker, type Processor, type WorkerOptions } from 'bullmq';
import { QUEUE_NAMES, type QueueName } from '../src/queue/names';
import type { Services } from '../src/services/container';
import { completionProcessing } from './completions';
import { promptReviewProcessor } from './prompt-review';
import { sandboxSyncProcessor } from './sandbox-sync';

export interface RunningWorkers {
  /** Stops taking jobs and waits for the running ones to finish. */
  close(): Promise<void>;
}

interface WorkerSpec {
  name: QueueName;
  processor: Processor;
  concurrency: number;
}

function workerSpecs(services: Services, completions: Processor): WorkerSpec[] {
  return [
    { name: QUEUE_NAMES.completions, processor: completions, concurrency: services.config.completionConcurrency },
    { name: QUEUE_NAMES.promptReview, processor: promptReviewProcessor(services) as Processor, concurrency: 4 },
    { name: QUEUE_NAMES.sandboxSync, processor: sandboxSyncProcessor(services) as Processor, concurrency: 2 },
  ];
}

/**
 * How fast the jobs of a worker that died start again elsewhere. BullMQ renews each running job's lock
 * every `lockDuration / 2` from a timer, whatever the concurrency; a job whose lock lapsed is moved
 * back to the queue by the next stalled-job check, which every worker runs but at most one per
 * interval. So a killed worker's jobs restart within about `lockDuration + stalledInterval`, while a
 * live one loses a lock only if its event loop stalls for about half of `lockDuration`. A job found
 * stalled a second time fails (and its client gets a 500) rather than crash worker after worker.
 */
function jobLockOptions(services: Services): Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> {
  return { lockDuration: services.config.jobLockMs, stalledInterval: services.config.jobStalledCheckMs, maxStalledCount: 1 };
}

export function startWorkers(services: Services): RunningWorkers {
  const completions = completionProcessing(services);
  const workers = workerSpecs(services, completions.process as Processor).map(
    ({ name, processor, concurrency }) =>
      new Worker(name, processor, { connection: services.redis, prefix: services.config.redisPrefix, concurrency, ...jobLockOptions(services) }),
  );
  for (const worker of workers) {
    worker.on('failed', (job, err) => services.logger.error({ queue: worker.name, job_id: job?.id, err }, 'job failed'));
    worker.on('error', (err) => services.logger.error({ queue: worker.name, err }, 'worker error'));
  }
  return {
    close: async () => {
      await Promise.all(workers.map((worker) => worker.close()));
      await completions.close();
    },
  };
}
