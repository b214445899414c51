import { runWorkers, type RunningWorkers } from '../../workers/index';
import type { WorkerServices } from '../../workers/worker-services';
import { buildCompletionWorker } from './build-completion-worker';

export type { RunningWorkers };

/** The workers of this process, with the completion worker built here, in the composition root. */
export function startWorkers(services: WorkerServices): RunningWorkers {
  return runWorkers(services, buildCompletionWorker(services));
}
