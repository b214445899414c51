import { Worker, type Job, type Processor, type WorkerOptions } from 'bullmq';
import { queueLabel } from '../src/queue/completion-shards';
import { QUEUE_NAMES, type QueueName } from '../src/queue/names';
import type { CompletionWorker, WorkerServices } from './worker-services';
import { JobOwners, type WatchedQueue } from '../src/resilience/job-owners';
import { instrumented } from '../src/observability/job-instrumentation';
import { batchProcessing } from './batches';
import { completionProcessor } from './completions';
import { promptReviewProcessor } from './prompt-review';
import { sandboxSyncProcessor } from './sandbox-sync';
import { spaceFileFailureRecorder, spaceFilesProcessor } from './space-files';
import { webhooksProcessor } from './webhooks';

export interface RunningWorkers {
  /** Stops taking jobs and waits for the running ones to finish. */
  close(): Promise<void>;
}

interface WorkerSpec {
  name: string;
  /** The queue's key prefix: the deployment's, or a completion shard's. */
  prefix: string;
  processor: Processor;
  concurrency: number;
  /** Times a job may be found stalled (its worker died) before it fails; default 1. */
  maxStalledCount?: number;
  /** Called when one of the queue's jobs fails, in whichever worker fails it. */
  onFailed?: (job: Job | undefined, err: Error) => Promise<void>;
}

interface Processors {
  completions: Processor;
  batches: Processor;
  batchLines: Processor;
}

/**
 * Every shard of the completion queue, each with an equal part of COMPLETION_CONCURRENCY: requests spread
 * evenly over the shards (by their random id), so the parts stay evenly busy.
 */
function completionSpecs(services: WorkerServices, processor: Processor): WorkerSpec[] {
  const shards = services.queues.completions.layout;
  const concurrency = Math.max(1, Math.ceil(services.config.completionConcurrency / shards.length));
  return shards.map(({ name, prefix }) => ({ name, prefix, processor, concurrency }));
}

function workerSpecs(services: WorkerServices, processors: Processors): WorkerSpec[] {
  const { batches, redisPrefix: prefix } = services.config;
  const specs: Omit<WorkerSpec, 'prefix'>[] = [
    { name: QUEUE_NAMES.promptReview, processor: promptReviewProcessor(services) as Processor, concurrency: 4 },
    { name: QUEUE_NAMES.sandboxSync, processor: sandboxSyncProcessor(services) as Processor, concurrency: 2 },
    // Each file is extracted and chunked in a bounded child process of its own; two at a time keep a 2-core machine
    // responsive. A file whose job stalls once (its worker died or hung) fails rather than take down the next
    // worker too, and its failure is recorded on the file by whichever worker fails the job.
    {
      name: QUEUE_NAMES.spaceFiles,
      processor: spaceFilesProcessor(services) as Processor,
      concurrency: 2,
      maxStalledCount: 0,
      onFailed: spaceFileFailureRecorder(services) as WorkerSpec['onFailed'],
    },
    // A batch's coordinator lives as long as its batch and must survive many worker deaths; its steps are idempotent.
    { name: QUEUE_NAMES.batches, processor: processors.batches, concurrency: batches.coordinatorConcurrency, maxStalledCount: 1000 },
    // Batch lines have their own, bounded, workers: a large batch never takes the completions' slots.
    { name: QUEUE_NAMES.batchLines, processor: processors.batchLines, concurrency: batches.lineConcurrency, maxStalledCount: 5 },
    // Deliveries wait on receivers, not on the CPU.
    { name: QUEUE_NAMES.webhooks, processor: webhooksProcessor(services) as Processor, concurrency: 32 },
  ];
  return [...completionSpecs(services, processors.completions), ...specs.map((spec) => ({ ...spec, prefix }))];
}

/**
 * BullMQ renews each running job's lock every `lockDuration / 2`; a job whose lock lapsed is put back
 * in the queue by the next stalled-job check (every worker runs one, at most one per interval). The
 * lock stays long (`JOB_LOCK_MS`, 30 s); a dead worker is noticed within about a second by `JobOwners`
 * (its heartbeat key expired), which frees its locks. A live worker whose event loop stalls for longer
 * than the heartbeat's TTL (1 s) loses its jobs the same way. A job found stalled a second time fails, rather than crash worker after worker.
 */
function jobLockOptions(services: WorkerServices): Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> {
  return { lockDuration: services.config.jobLockMs, stalledInterval: services.config.jobStalledCheckMs, maxStalledCount: 1 };
}

/** Queues whose running jobs are recovered quickly when their worker dies (JobOwners): the completion shards, batches and lines. */
function ownedQueues(services: WorkerServices): WatchedQueue[] {
  const prefix = services.config.redisPrefix;
  const others: QueueName[] = [QUEUE_NAMES.batches, QUEUE_NAMES.batchLines];
  return [...services.queues.completions.layout, ...others.map((name) => ({ name, prefix }))];
}

/** Starts a worker per queue (and per completion shard) with the completions the composition root built. */
export function runWorkers(services: WorkerServices, completions: CompletionWorker): RunningWorkers {
  const batches = batchProcessing(services, completions);
  const processors = {
    completions: completionProcessor(completions),
    batches: batches.coordinator,
    batchLines: batches.line,
  };
  const specs = workerSpecs(services, processors);
  const workers = specs.map(
    ({ name, prefix, processor, concurrency, maxStalledCount }) =>
      new Worker(name, instrumented(queueLabel(name), processor), {
        connection: services.queueConnection,
        prefix,
        concurrency,
        ...jobLockOptions(services),
        ...(maxStalledCount === undefined ? {} : { maxStalledCount }),
      }),
  );
  // One watch for the process: its heartbeats renewed together, the queues looked at in one script.
  const owned = ownedQueues(services);
  const owners = new JobOwners({ redis: services.redis, queues: owned, intervalMs: services.config.jobStalledCheckMs, logger: services.logger });
  owners.start(Object.fromEntries(workers.filter((worker) => owned.some((queue) => queue.name === worker.name)).map((worker) => [worker.name, worker.id])));
  batches.resume().catch((err: unknown) => services.logger.error({ err }, 'unfinished batches not resumed'));
  workers.forEach((worker, i) => {
    const onFailed = specs[i]?.onFailed;
    worker.on('failed', (job, err) => {
      services.logger.error({ queue: worker.name, job_id: job?.id, err }, 'job failed');
      void onFailed?.(job, err);
    });
    worker.on('error', (err) => services.logger.error({ queue: worker.name, err }, 'worker error'));
  });
  return {
    close: async () => {
      owners.stop();
      // Coordinators hand their batches back to the queue at once rather than run until their batch ends.
      batches.close();
      await Promise.all(workers.map((worker) => worker.close()));
      await Promise.all([completions.close(), owners.finish()]);
    },
  };
}
