import type { PrivacyPolicy } from '../domain/privacy-policy';

/**
 * What Redis keeps of a completion's job once it ends, for bull-board: decided once, where the API
 * accepts the request (`completionJobOptions`), and carried in the job's options; the queue adds the job
 * with them as they are.
 *
 * Finished jobs: one in `COMPLETION_JOBS_KEPT_ONE_IN` (default 10). Keeping a finished job costs about 6
 * Redis commands as it completes (the completed set's ZADD and its trim by count and age: ZREVRANGE,
 * ZREMRANGEBYRANK, ZREVRANGEBYSCORE, the oldest job's DEL): BullMQ's job life is 40 commands instead of 34
 * (tools/bench/kept-jobs.ts). One in 10 costs 0.6 of them per completion and still shows operators a
 * recent sample of what ran; each request's log holds it all. Failed jobs are what operators look for, and
 * rare: every one the privacy rules allow is kept.
 *
 * The privacy rules: at level 2 the worker masks a kept job's request before it completes, and a job that
 * fails some other way (its worker died) is not kept, since nobody masked it; level 3 keeps nothing once
 * the job ends.
 */
const KEEP_FINISHED = { age: 3600, count: 500 } as const;
const KEEP_FAILED = { age: 24 * 3600, count: 1000 } as const;

/**
 * A request body past this many bytes is not kept in Redis once its job ends, at any level: 500
 * finished and 1,000 failed jobs of 1 MiB each would hold 1.5 GB of Redis memory for a day, and the
 * request's log holds it all anyway. bull-board then shows such a job only while it runs.
 */
export const MAX_KEPT_BODY_BYTES = 64 * 1024;

/** A completion job's BullMQ options, as the API decided them (`completionJobOptions`). */
export interface CompletionJobOptions {
  /** The request id. */
  jobId: string;
  /** A job is run once: a run that failed has answered its client (a stalled one BullMQ hands out again). */
  attempts: 1;
  /** `true`: removed as it completes; else kept for a while. */
  removeOnComplete: true | typeof KEEP_FINISHED;
  /** `true`: removed as it fails; else kept for a while. */
  removeOnFail: true | typeof KEEP_FAILED;
}

export interface KeptJobInputs {
  requestId: string;
  /** What the request's privacy level lets Redis keep of its job. */
  keptJob: PrivacyPolicy['keptJob'];
  /** The request body's size in bytes, when the edge knows it. */
  bodyBytes?: number;
  /** One finished job in this many is kept (`COMPLETION_JOBS_KEPT_ONE_IN`); 1 keeps every one, 0 none. */
  keptOneIn: number;
}

/**
 * A request's job options: kept once it ends as its privacy level allows, never when its body is large,
 * and, finished, only if the request is in the kept sample.
 */
export function completionJobOptions({ requestId, keptJob, bodyBytes = 0, keptOneIn }: KeptJobInputs): CompletionJobOptions {
  if (keptJob === 'none' || bodyBytes > MAX_KEPT_BODY_BYTES) return { jobId: requestId, attempts: 1, removeOnComplete: true, removeOnFail: true };
  return {
    jobId: requestId,
    attempts: 1,
    removeOnComplete: inKeptSample(requestId, keptOneIn) ? KEEP_FINISHED : true,
    removeOnFail: keptJob === 'masked' ? true : KEEP_FAILED,
  };
}

/**
 * Whether a request's finished job is in the kept sample: by a hash of its id (a random UUID), so every
 * process decides alike and the sample spreads evenly over the queue's shards (which hash the id with
 * CRC16). `oneIn` 1 keeps every job, 0 none.
 */
export function inKeptSample(requestId: string, oneIn: number): boolean {
  if (oneIn <= 0) return false;
  return oneIn === 1 || fnv1a(requestId) % oneIn === 0;
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
