import { DelayedError, type Job, type Processor } from 'bullmq';
import type { BatchJob, BatchLineJob } from '../src/queue/payloads';
import { BatchCoordinator } from '../src/services/batches/batch-coordinator';
import { LineFeeder } from '../src/services/batches/line-feeder';
import { LineRunner } from '../src/services/batches/line-runner';
import type { WorkerServices } from './worker-services';
import { BatchLineRepository } from '../src/store/batch-lines';
import { BatchRepository } from '../src/store/batches';
import type { CompletionProcessing } from './completions';

/** How soon a coordinator handed back at shutdown may be taken again, in ms. */
const HAND_BACK_DELAY_MS = 100;

export interface BatchProcessing {
  coordinator: Processor;
  line: Processor;
  /** Makes sure every unfinished batch has a live coordinator job (one whose job failed for good gets it retried). */
  resume(): Promise<void>;
  /** Stops the coordinators (their batches go back to the queue); lines finish. */
  close(): void;
}

/** The `batches` queue's coordinators and the `batch-lines` queue's runners, built once per worker process. */
export function batchProcessing(services: WorkerServices, completions: CompletionProcessing): BatchProcessing {
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
    runDetached: (job, signal) => completions.runDetached(job, signal),
    timeoutMs: config.completionTimeoutMs,
  });
  // Lines are not abandoned when their worker stops: a graceful stop lets them finish, a crash hands them on.
  const lineSignal = new AbortController().signal;
  const stopping = new AbortController();
  return {
    coordinator: (async (job: Job<BatchJob>, token?: string) => {
      const status = await coordinator.coordinate(job.data.batchId, { report: (progress) => job.updateProgress(progress), stop: stopping.signal });
      if (status !== 'interrupted') return { status };
      // Back to the queue for another worker (or this one after a restart): the batch has not ended.
      await job.moveToDelayed(Date.now() + HAND_BACK_DELAY_MS, token);
      throw new DelayedError();
    }) as Processor,
    line: (async (job: Job<BatchLineJob>) => runner.run(job.data, lineSignal)) as Processor,
    resume: async () => {
      for (const { id } of await batches.unfinished(config.redisPrefix)) {
        const job = await queues.batches.getJob(id);
        if (!job) await queues.batches.add('batch', { batchId: id }, { jobId: id });
        else if (await job.isFailed()) await job.retry('failed');
      }
    },
    close: () => stopping.abort(),
  };
}
