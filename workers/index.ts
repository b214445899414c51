import { Worker, type Processor } from 'bullmq';
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

export function startWorkers(services: Services): RunningWorkers {
  const completions = completionProcessing(services);
  const workers = workerSpecs(services, completions.process as Processor).map(
    ({ name, processor, concurrency }) =>
      new Worker(name, processor, { connection: services.redis, prefix: services.config.redisPrefix, concurrency }),
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
