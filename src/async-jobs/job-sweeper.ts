import type { Logger } from 'pino';
import { periodic, type Periodic } from '../domain/periodic';
import type { AsyncJobStore } from './job-store';

/** How often a worker process deletes expired async job records, in ms. Late deletion hides nothing: expired records already read as unknown. */
export const ASYNC_JOB_SWEEP_MS = 60_000;

/**
 * Deletes async job records past their TTL every `intervalMs`, in each worker process: the statement is
 * idempotent, so several processes sweeping at once only repeat each other's (empty) work. `stop` ends it
 * (a sweep under way finishes on its own).
 */
export function startAsyncJobSweep(
  store: Pick<AsyncJobStore, 'sweep'>,
  { logger, intervalMs = ASYNC_JOB_SWEEP_MS }: { logger: Logger; intervalMs?: number },
): Pick<Periodic, 'stop'> {
  const sweep = async () => {
    const deleted = await store.sweep();
    if (deleted > 0) logger.debug({ deleted }, 'expired async jobs deleted');
  };
  return periodic(intervalMs, sweep, (err) => logger.warn({ err }, 'expired async jobs not deleted'));
}
