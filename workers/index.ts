import { Worker, type Job, type Processor, type WorkerOptions } from 'bullmq';
import { QUEUE_NAMES, type QueueName } from '../src/queue/names';
import type { Services } from '../src/services/container';
import type { CompletionJob } from '../src/queue/payloads';
import { JobOwners } from '../src/resilience/job-owners';
import { completionProcessing, type CompletionProcessing } from './completions';
import { promptReviewProcessor } from './prompt-review';
import { sandboxSyncProcessor } from './sandbox-sync';
import { spaceFilesProcessor } from './space-files';

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
    // PDF text is read in a thread per file; two at a time keep a 2-core machine responsive.
    { name: QUEUE_NAMES.spaceFiles, processor: spaceFilesProcessor(services) as Processor, concurrency: 2 },
  ];
}

/**
 * BullMQ renews each running job's lock every `lockDuration / 2`; a job whose lock lapsed is put back
 * in the queue by the next stalled-job check (every worker runs one, at most one per interval). The
 * lock stays long (`JOB_LOCK_MS`, 30 s); a dead worker is noticed within about a second by `JobOwners`
 * (its heartbeat key expired), which frees its locks. A live worker whose event loop stalls for longer
 * than the heartbeat's TTL (1 s) loses its jobs the same way. A job found stalled a second time fails, rather than crash worker after worker.
 */
function jobLockOptions(services: Services): Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> {
  return { lockDuration: services.config.jobLockMs, stalledInterval: services.config.jobStalledCheckMs, maxStalledCount: 1 };
}

/** Runs completion jobs, each recorded under this process's heartbeat so other workers notice if it dies. */
function ownedCompletions(services: Services, completions: CompletionProcessing): { processor: Processor; owners: JobOwners } {
  const owners = new JobOwners({
    redis: services.redis,
    prefix: services.config.redisPrefix,
    queueName: QUEUE_NAMES.completions,
    intervalMs: services.config.jobStalledCheckMs,
    logger: services.logger,
  });
  const processor = async (job: Job<CompletionJob>, token?: string) => {
    const id = job.id ?? job.data.requestId;
    owners.claim(id, token ?? '');
    try {
      return await completions.process(job);
    } finally {
      owners.release(id);
    }
  };
  return { processor: processor as Processor, owners };
}

export function startWorkers(services: Services): RunningWorkers {
  const completions = completionProcessing(services);
  const { processor, owners } = ownedCompletions(services, completions);
  owners.start();
  const workers = workerSpecs(services, processor).map(
    ({ name, processor, concurrency }) =>
      new Worker(name, processor, { connection: services.redis, prefix: services.config.redisPrefix, concurrency, ...jobLockOptions(services) }),
  );
  for (const worker of workers) {
    worker.on('failed', (job, err) => services.logger.error({ queue: worker.name, job_id: job?.id, err }, 'job failed'));
    worker.on('error', (err) => services.logger.error({ queue: worker.name, err }, 'worker error'));
  }
  return {
    close: async () => {
      owners.stop();
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all([completions.close(), owners.finish()]);
    },
  };
}
