import { Queue, type ConnectionOptions, type DefaultJobOptions } from 'bullmq';
import { QUEUE_NAMES } from './names';
import type { CompletionJob, PromptReviewJob, SandboxSyncJob, SpaceFileJob, WebhookJob } from './payloads';

export interface Queues {
  /** Per-job retention is set when a completion is added (privacy level 3 keeps nothing). */
  completions: Queue<CompletionJob>;
  sandboxSync: Queue<SandboxSyncJob>;
  promptReview: Queue<PromptReviewJob>;
  /** Ingestion of uploaded Space files (text extraction, chunks, embeddings). */
  spaceFiles: Queue<SpaceFileJob>;
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

export function createQueues(connection: ConnectionOptions, prefix: string): Queues {
  const options = { connection, prefix, defaultJobOptions: KEEP_FINISHED };
  const completions = new Queue<CompletionJob>(QUEUE_NAMES.completions, { connection, prefix });
  const sandboxSync = new Queue<SandboxSyncJob>(QUEUE_NAMES.sandboxSync, options);
  const promptReview = new Queue<PromptReviewJob>(QUEUE_NAMES.promptReview, options);
  const spaceFiles = new Queue<SpaceFileJob>(QUEUE_NAMES.spaceFiles, options);
  const webhooks = new Queue<WebhookJob>(QUEUE_NAMES.webhooks, options);
  const all = (): Queue[] => [completions as Queue, sandboxSync as Queue, promptReview as Queue, spaceFiles as Queue, webhooks as Queue];
  return {
    completions,
    sandboxSync,
    promptReview,
    spaceFiles,
    webhooks,
    all,
    close: async () => {
      await Promise.all(all().map((queue) => queue.close()));
    },
  };
}
