import type { JobsOptions } from 'bullmq';

/**
 * Which finished completion jobs stay in Redis for bull-board: one in `COMPLETION_JOBS_KEPT_ONE_IN`
 * (default 10). Keeping a finished job costs about 6 Redis commands as it completes (the completed set's
 * ZADD and its trim by count and age: ZREVRANGE, ZREMRANGEBYRANK, ZREVRANGEBYSCORE, the oldest job's DEL):
 * BullMQ's job life is 40 commands instead of 34 (tools/bench/kept-jobs.ts). One in 10 costs 0.6 of them
 * per completion and still shows operators a recent sample of what ran; each request's log holds it all,
 * and failed jobs are kept as before.
 */

/**
 * Whether a request's finished job is in the kept sample: by a hash of its id (a random UUID), so every
 * process decides alike and the sample spreads evenly over the queue's shards (which hash the id with
 * CRC16). `oneIn` 1 keeps every job, 0 none.
 */
export function inKeptSample(requestId: string, oneIn: number): boolean {
  if (oneIn <= 0) return false;
  return oneIn === 1 || fnv1a(requestId) % oneIn === 0;
}

/**
 * A completion job's options as the queue adds them: a finished job the options keep for a while
 * (`removeOnComplete` a count, an age, or `false`) is kept only if its request is in the sample, else
 * removed as it completes. Failed jobs are what operators look for, and rare: `removeOnFail` is left as
 * the privacy rules set it. Options without a retention (BullMQ's default: kept for ever) are left as given.
 */
export function sampledRetention(requestId: string, options: JobsOptions, oneIn: number): JobsOptions {
  const keeps = options.removeOnComplete !== undefined && options.removeOnComplete !== true;
  return keeps && !inKeptSample(requestId, oneIn) ? { ...options, removeOnComplete: true } : options;
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
