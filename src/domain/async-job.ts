import type { CompletionFailure, CompletionResult } from './completion';

/**
 * An async chat completion (`Prefer: respond-async`) as the service keeps it in PostgreSQL (table
 * `async_jobs`). Its id is the request id, the id of its log and of its BullMQ job. The outcome is a
 * domain result or failure: the API formats it at its edge when it is read, exactly as the synchronous
 * call would have answered.
 */

/** What is stored. `in_progress` is never stored: a queued job whose BullMQ job is active reads as it. */
export const STORED_JOB_STATUSES = ['queued', 'completed', 'failed', 'cancelled', 'expired'] as const;
export type StoredJobStatus = (typeof STORED_JOB_STATUSES)[number];
export const JOB_STATUSES = ['queued', 'in_progress', 'completed', 'failed', 'cancelled', 'expired'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export type JobOutcome = { result: CompletionResult } | { failure: CompletionFailure };

export interface WebhookDelivery {
  status: 'pending' | 'delivered' | 'failed';
  /** Deliveries tried so far. */
  attempts: number;
  /** HTTP status of the last answer, if one came. */
  lastStatusCode: number | null;
  lastError: string | null;
  /** Epoch seconds. */
  deliveredAt: number | null;
}

export interface AsyncJobRecord {
  id: string;
  orgId: string;
  appId: string;
  status: StoredJobStatus;
  /** Epoch seconds. */
  createdAt: number;
  finishedAt: number | null;
  /** The model that answered, once the job completed; before that (or when none answered) the `model` the request named, or null (automatic choice). */
  model: string | null;
  /** The request's own webhook URL; null: the Space's, if it has one. */
  webhookUrl: string | null;
  /** Absent while queued, for a cancelled job, and at privacy level 3 (nothing of the answer is kept). */
  outcome: JobOutcome | null;
  webhook: WebhookDelivery | null;
}

/** What a job's status is once it ended, from how its run ended. */
export function endedStatus(outcome: JobOutcome, { aborted, pastDeadline }: { aborted: boolean; pastDeadline: boolean }): StoredJobStatus {
  if ('result' in outcome) return 'completed';
  if (aborted) return 'cancelled';
  // It waited (or ran) past the completion deadline: OpenAI's word for work not done in its window.
  if (pastDeadline && outcome.failure.code === 'timeout') return 'expired';
  return 'failed';
}
