import { UnrecoverableError, type Job } from 'bullmq';
import { backendClient } from '../src/net/backend-client';
import type { SpaceFileJob } from '../src/queue/payloads';
import type { Services } from '../src/services/container';
import { IngestFailure, ingestSpaceFile, type IngestDeps, type IngestOutcome } from '../src/services/space-files/ingest-file';
import { SpaceFileChunkRepository } from '../src/store/space-file-chunks';
import { SpaceFileRepository } from '../src/store/space-files';

/**
 * Ingests uploaded Space files. A file that cannot be read fails at once; anything else (PostgreSQL,
 * an embeddings backend) is retried by the queue, and the file is marked `failed` with the reason
 * only when no attempt is left.
 */
export function spaceFilesProcessor({ db, logger, spaceSearch }: Services) {
  const files = new SpaceFileRepository(db);
  const deps: IngestDeps = { files, chunks: new SpaceFileChunkRepository(db), embeddings: spaceSearch.embeddings, http: backendClient, logger };
  return async (job: Job<SpaceFileJob>): Promise<IngestOutcome> => {
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const log = logger.child({ job_id: job.id, app_id: job.data.appId, file_id: job.data.fileId });
    try {
      const outcome = await ingestSpaceFile({ ...deps, logger: log }, job.data, { lastAttempt });
      log.info(outcome, 'space file ingested');
      return outcome;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const final = err instanceof IngestFailure || lastAttempt;
      if (final) await files.markFailed(job.data.fileId, reason);
      log.warn({ err, final }, 'space file ingestion failed');
      throw err instanceof IngestFailure ? new UnrecoverableError(reason) : err;
    }
  };
}
