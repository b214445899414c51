import type { Logger } from 'pino';
import type { AsyncJobStore } from './job-store';

/** How often a worker process deletes expired async job records, in ms. Late deletion hides nothing: expired records already read as unknown. */
export const ASYNC_JOB_SWEEP_MS = 60_000;

/** A running sweep; `stop` ends it (a sweep under way finishes on its own). */
export interface AsyncJobSweep {
  stop(): void;
}

/**
 * Deletes async job records past their TTL every `intervalMs`, in each worker process: the statement is
 * idempotent, so several processes sweeping at once only repeat each other's (empty) work.
 */
export function startAsyncJobSweep(store: Pick<AsyncJobStore, 'sweep'>, { logger, intervalMs = ASYNC_JOB_SWEEP_MS }: { logger: Logger; intervalMs?: number }): AsyncJobSweep {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    store
      .sweep()
      .then((deleted) => {
        if (deleted > 0) logger.debug({ deleted }, 'expired async jobs deleted');
      })
      .catch((err: unknown) => logger.warn({ err }, 'expired async jobs not deleted'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
