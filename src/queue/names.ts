/** BullMQ queue names. Every Redis key is further prefixed with the configured `REDIS_PREFIX`. */
export const QUEUE_NAMES = {
  completions: 'completions',
  sandboxSync: 'sandbox-sync',
  promptReview: 'prompt-review',
  spaceFiles: 'space-files',
  batches: 'batches',
  batchLines: 'batch-lines',
  webhooks: 'webhooks',
} as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];
