import { UnrecoverableError, type Job } from 'bullmq';
import { backendClient } from '../src/net/backend-client';
import type { SpaceFileJob } from '../src/queue/payloads';
import type { WorkerServices } from './worker-services';
import { IngestFailure, ingestSpaceFile, type IngestDeps, type IngestOutcome } from '../src/services/space-files/ingest-file';
import { SpaceFileChunkRepository } from '../src/store/space-file-chunks';
import { SpaceFileRepository } from '../src/store/space-files';
import { searchableFilesChanged } from '../src/services/space-files/searchable-files-changed';

/**
 * Ingests uploaded Space files. Extraction and chunking run in a child process per file, bounded by
 * SPACE_FILE_INGEST_HEAP_MB and SPACE_FILE_INGEST_TIMEOUT_MS; this event loop does the I/O only
 * (PostgreSQL, the embeddings backend). A file that cannot be read, or whose process runs out of
 * memory or time, fails at once; anything else is retried by the queue, and the file is marked
 * `failed` with the reason only when no attempt is left.
 */
export function spaceFilesProcessor({ db, logger, spaceSearch, spaceVersions }: WorkerServices) {
  const files = new SpaceFileRepository(db);
  const changed = { files, versions: spaceVersions };
  const deps: IngestDeps = {
    files,
    chunks: new SpaceFileChunkRepository(db),
    embeddings: spaceSearch.embeddings,
    http: backendClient,
    chunking: { heapMb: spaceSearch.ingestHeapMb, timeoutMs: spaceSearch.ingestTimeoutMs },
    logger,
  };
  return async (job: Job<SpaceFileJob>): Promise<IngestOutcome> => {
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const log = logger.child({ job_id: job.id, app_id: job.data.appId, file_id: job.data.fileId });
    try {
      const outcome = await ingestSpaceFile({ ...deps, logger: log }, job.data, { lastAttempt });
      if (outcome.status === 'ready') await searchableFilesChanged(changed, job.data.appId);
      log.info(outcome, 'space file ingested');
      return outcome;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const final = err instanceof IngestFailure || lastAttempt;
      // A failed file was never searchable (only a `ready` one is): the Space's snapshots stand.
      if (final) await files.markFailed(job.data.fileId, reason);
      log.warn({ err, final }, 'space file ingestion failed');
      throw err instanceof IngestFailure ? new UnrecoverableError(reason) : err;
    }
  };
}

/** BullMQ's reason for a job failed because it stalled more often than `maxStalledCount` allows. */
const STALLED_REASON = 'job stalled more than allowable limit';

/**
 * Records on the file a failure the processor never saw: a job whose worker stalled or died while it
 * ran is failed by BullMQ (its `deferredFailure`) in whichever worker takes it next, without running
 * the processor. Listens to the space-files worker's `failed` event.
 */
export function spaceFileFailureRecorder({ db, logger }: WorkerServices) {
  const files = new SpaceFileRepository(db);
  return async (job: Job<SpaceFileJob> | undefined, err: Error): Promise<void> => {
    if (!job?.deferredFailure || !job.data.fileId) return;
    const reason =
      err.message === STALLED_REASON
        ? 'Ingestion stopped: the worker reading the file stalled or died, and the file is not tried again.'
        : `Ingestion failed: ${err.message}`;
    try {
      await files.markFailed(job.data.fileId, reason);
    } catch (markErr) {
      logger.error({ err: markErr, job_id: job.id, file_id: job.data.fileId }, 'space file failure not recorded');
    }
  };
}
