import type { Job } from 'bullmq';
import type { SandboxSyncJob } from '../src/queue/payloads';
import { processSandboxSync, type SyncOutcome } from '../src/services/apps/sandbox-sync';
import type { WorkerServices } from './worker-services';

export function sandboxSyncProcessor({ sandboxSync, logger }: WorkerServices) {
  return async (job: Job<SandboxSyncJob>): Promise<SyncOutcome> => {
    const outcome = await processSandboxSync(sandboxSync, job);
    logger.info({ job_id: job.id, app_id: job.data.mainAppId, ...outcome }, 'sandbox synced');
    return outcome;
  };
}
