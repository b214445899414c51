import type { Logger } from 'pino';
import { periodic } from '../domain/periodic';
import type { CompletionClaimStore } from '../store/completion-claims';

/** Claims are kept at least this long, in ms: longer than any job stays in the queue or runs by default. */
export const MIN_CLAIM_RETENTION_MS = 60 * 60 * 1000;
/** Claims deleted by one statement, at most: each DELETE stays short and holds few row locks. */
const SWEEP_BATCH = 1000;
/** Statements one sweep makes, at most; what is left waits for the next sweep. */
const MAX_STATEMENTS_PER_SWEEP = 20;

export interface ClaimSweeperOptions {
  store: Pick<CompletionClaimStore, 'sweep'>;
  /** How long a claim is kept, in ms: past every job's deadline (a job past it calls no upstream). */
  retainMs: number;
  /** How often the sweep runs, in ms. */
  everyMs: number;
  logger: Logger;
}

/** How long claims must be kept for jobs whose deadline is `completionTimeoutMs` after they were accepted. */
export function claimRetentionMs(completionTimeoutMs: number): number {
  return Math.max(MIN_CLAIM_RETENTION_MS, 2 * completionTimeoutMs);
}

/**
 * Deletes old completion claims, in batches of SWEEP_BATCH, from every worker process (a row another
 * sweeper has locked is skipped, so they never wait on each other). Answers a function that stops it.
 */
export function startClaimSweeper(options: ClaimSweeperOptions): () => void {
  const sweep = async () => {
    for (let i = 0; i < MAX_STATEMENTS_PER_SWEEP; i++) {
      if ((await options.store.sweep(options.retainMs, SWEEP_BATCH)) < SWEEP_BATCH) break;
    }
  };
  const sweeper = periodic(options.everyMs, sweep, (err) => options.logger.warn({ err }, 'old completion claims not swept'));
  return () => sweeper.stop();
}
