import { DelayedError, type Job, type Processor, type Queue } from 'bullmq';
import type { BatchJob, BatchLineJob } from '../src/queue/payloads';
import { startAsyncJobSweep } from '../src/async-jobs/job-sweeper';
import { periodic, type Periodic } from '../src/domain/periodic';
import { BatchCoordinator } from '../src/services/batches/batch-coordinator';
import { LineFeeder } from '../src/services/batches/line-feeder';
import { LineRunner } from '../src/services/batches/line-runner';
import type { CompletionWorker, WorkerServices } from './worker-services';
import { BatchLineRepository } from '../src/store/batch-lines';
import { BatchRepository } from '../src/store/batches';

/** How soon a coordinator handed back at shutdown may be taken again, in ms. */
const HAND_BACK_DELAY_MS = 100;
/**
 * How often each worker process makes sure every unfinished batch has a live coordinator job, in ms:
 * after Redis lost its data, a running batch resumes within this (and the coordinator's first recovery).
 */
const RESUME_MS = 10_000;
/** How often a running coordinator checks that its job is still its own, in ms. */
const OWNERSHIP_CHECK_MS = 5_000;

export interface BatchProcessing {
  coordinator: Processor;
  line: Processor;
  /**
   * Makes sure every unfinished batch has a live coordinator job (a missing one is added, one that failed
   * for good or ended early is run again), now and then every RESUME_MS until `close`. Also starts the
   * sweep of expired async job records, the process's other periodic look at PostgreSQL.
   */
  resume(): Promise<void>;
  /** Stops the coordinators (their batches go back to the queue) and the periodic checks; lines finish. */
  close(): void;
}

/** A coordinator's job was deleted or taken over (Redis lost its data, or its lock lapsed): another coordinator goes on. */
class CoordinatorJobLost extends Error {
  constructor(batchId: string) {
    super(`the coordinator job of batch ${batchId} is no longer this worker's; the re-added job takes over`);
  }
}

/**
 * Aborts when the job's lock is no longer this worker's: its key is gone (Redis lost its data) or
 * another worker holds it. The check extends the lock, as BullMQ's own renewal does. A failed check
 * (Redis unreachable) tells nothing and is tried again.
 */
function watchOwnership(job: Job, token: string | undefined, lockMs: number): { signal: AbortSignal; lose(): void; stop(): void } {
  const lost = new AbortController();
  const timer = token
    ? setInterval(() => {
        job.extendLock(token, lockMs).then(
          (held) => {
            if (!held) lost.abort();
          },
          () => undefined,
        );
      }, OWNERSHIP_CHECK_MS)
    : undefined;
  return { signal: lost.signal, lose: () => lost.abort(), stop: () => clearInterval(timer) };
}

/** One pass of the resume check: each unfinished batch of this deployment gets a coordinator job that will run. */
async function ensureCoordinators(batches: BatchRepository, queue: Queue<BatchJob>, queuePrefix: string): Promise<void> {
  for (const { id } of await batches.unfinished(queuePrefix)) {
    const job = await queue.getJob(id);
    const state = job ? await job.getState() : 'unknown';
    if (state === 'failed') await job?.retry('failed');
    // A job that ended while its batch did not (its coordinator was cut off) is replaced.
    else if (state === 'completed') await job?.remove();
    if (state === 'unknown' || state === 'completed') await queue.add('batch', { batchId: id }, { jobId: id });
  }
}

/** The `batches` queue's coordinators and the `batch-lines` queue's runners, built once per worker process. */
export function batchProcessing(services: WorkerServices, completions: CompletionWorker): BatchProcessing {
  const { db, queues, config, logger } = services;
  const batches = new BatchRepository(db);
  const lines = new BatchLineRepository(db);
  const feeder = new LineFeeder({ lines, queue: queues.batchLines, spaceConcurrency: config.batches.spaceConcurrency });
  const coordinator = new BatchCoordinator({ batches, lines, files: services.openAiFiles, feeder, logger });
  const { spaces } = services;
  const runner = new LineRunner({
    batches,
    lines,
    feeder,
    findSpace: (appId) => spaces.find(appId),
    runDetached: (job, signal) => completions.runs.runDetached(job, signal),
    timeoutMs: config.completionTimeoutMs,
    autoModelName: config.autoModelName,
  });
  // Lines are not abandoned when their worker stops: a graceful stop lets them finish, a crash hands them on.
  const lineSignal = new AbortController().signal;
  const stopping = new AbortController();
  let resumer: Periodic | undefined;
  let sweep: Pick<Periodic, 'stop'> | undefined;
  return {
    coordinator: (async (job: Job<BatchJob>, token?: string) => {
      const ownership = watchOwnership(job, token, config.jobLockMs);
      try {
        const status = await coordinator.coordinate(job.data.batchId, {
          // A progress that cannot be written means the job is gone: this coordinator stops, the re-added one goes on.
          report: (progress) => job.updateProgress(progress).catch(() => ownership.lose()),
          stop: AbortSignal.any([stopping.signal, ownership.signal]),
        });
        if (status !== 'interrupted') return { status };
        // Its job is gone: nothing of it is left to move; failing it touches only a job still locked by this worker.
        if (ownership.signal.aborted) {
          logger.warn(
            { batch_id: job.data.batchId, job_id: job.id },
            'batch coordinator stopped: its job was lost (Redis lost its data, or its lock lapsed); the re-added job takes over',
          );
          throw new CoordinatorJobLost(job.data.batchId);
        }
        // Back to the queue for another worker (or this one after a restart): the batch has not ended.
        await job.moveToDelayed(Date.now() + HAND_BACK_DELAY_MS, token);
        throw new DelayedError();
      } finally {
        ownership.stop();
      }
    }) as Processor,
    line: (async (job: Job<BatchLineJob>) => runner.run(job.data, lineSignal)) as Processor,
    resume: async () => {
      sweep ??= startAsyncJobSweep(services.asyncJobs, { logger });
      resumer ??= periodic(
        RESUME_MS,
        () => ensureCoordinators(batches, queues.batches, config.redisPrefix),
        (err) => logger.error({ err }, 'unfinished batches not resumed'),
      );
      await resumer.now();
    },
    close: () => {
      stopping.abort();
      resumer?.stop();
      sweep?.stop();
    },
  };
}
