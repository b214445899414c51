import { Queue, type ConnectionOptions, type DefaultJobOptions } from 'bullmq';
import { CompletionQueue } from './completion-queue';
import type { CompletionShard } from './completion-shards';
import { QUEUE_NAMES } from './names';
import type { BatchJob, BatchLineJob, PromptReviewJob, SandboxSyncJob, SpaceFileJob, WebhookJob } from './payloads';

export interface Queues {
  /** Per-job retention is decided by the API with each request (queue/kept-jobs.ts). Sharded: see CompletionQueue. */
  completions: CompletionQueue;
  sandboxSync: Queue<SandboxSyncJob>;
  promptReview: Queue<PromptReviewJob>;
  /** Ingestion of uploaded Space files (text extraction, chunks, embeddings). */
  spaceFiles: Queue<SpaceFileJob>;
  /** One job per batch, alive while the batch runs; its progress is the batch's request counts. */
  batches: Queue<BatchJob>;
  /** Batch lines, apart from interactive completions: their own workers and concurrency. */
  batchLines: Queue<BatchLineJob>;
  /** Webhooks of async jobs; attempts and backoff are set per job from the configuration. */
  webhooks: Queue<WebhookJob>;
  all(): Queue[];
  close(): Promise<void>;
}

/** Finished jobs are kept for a while so operators can look at them in bull-board. */
const KEEP_FINISHED: DefaultJobOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
};

/** How the completion queue is laid out. */
export interface CompletionQueueLayout {
  /** Its shards (`completionShards`). */
  shards: readonly CompletionShard[];
}

/** The queues, under the deployment's prefix; the completion queue in its shards. */
export function createQueues(connection: ConnectionOptions, prefix: string, { shards }: CompletionQueueLayout): Queues {
  const options = { connection, prefix, defaultJobOptions: KEEP_FINISHED };
  const completions = new CompletionQueue(shards, connection);
  const sandboxSync = new Queue<SandboxSyncJob>(QUEUE_NAMES.sandboxSync, options);
  const promptReview = new Queue<PromptReviewJob>(QUEUE_NAMES.promptReview, options);
  const spaceFiles = new Queue<SpaceFileJob>(QUEUE_NAMES.spaceFiles, options);
  // A coordinator survives its worker's death many times over (a batch may run for a day); a line a few.
  const batches = new Queue<BatchJob>(QUEUE_NAMES.batches, { connection, prefix, defaultJobOptions: { ...KEEP_FINISHED, attempts: 20 } });
  const batchLines = new Queue<BatchLineJob>(QUEUE_NAMES.batchLines, {
    connection,
    prefix,
    defaultJobOptions: { ...KEEP_FINISHED, removeOnComplete: { age: 3600, count: 10_000 } },
  });
  const webhooks = new Queue<WebhookJob>(QUEUE_NAMES.webhooks, options);
  const all = (): Queue[] => [
    ...(completions.shards as Queue[]),
    sandboxSync as Queue,
    promptReview as Queue,
    spaceFiles as Queue,
    batches as Queue,
    batchLines as Queue,
    webhooks as Queue,
  ];
  return {
    completions,
    sandboxSync,
    promptReview,
    spaceFiles,
    batches,
    batchLines,
    webhooks,
    all,
    close: async () => {
      await Promise.all(all().map((queue) => queue.close()));
    },
  };
}
