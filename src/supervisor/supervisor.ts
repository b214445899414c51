import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { RestartBackoff } from './restart-backoff';

/** The one role each supervised process runs (`SWITCHYARD_ROLE` in its environment). */
export type ChildRole = 'api' | 'workers';

export interface SupervisorOptions {
  apiProcesses: number;
  workerProcesses: number;
  /** How long a child may drain after SIGTERM before it is killed, in ms (its own grace period plus a margin). */
  stopTimeoutMs: number;
  logger: Logger;
}

export interface Supervisor {
  /** SIGTERM to every child (each drains as a lone process would), SIGKILL to those still running after `stopTimeoutMs`. */
  stop(): Promise<void>;
}

/** One place a child runs in: its role, its restart pacing, the child running there now. */
interface Slot {
  role: ChildRole;
  index: number;
  backoff: RestartBackoff;
  child: Worker | null;
}

/**
 * `npm start` (SWITCHYARD_ROLE=all): API and worker processes as node:cluster children. API children share
 * the listening port (the primary hands out connections round-robin); worker children each consume the
 * queues with their own BullMQ concurrency. A child that exits unasked is started again, at once if it
 * had run for a while, else after a growing delay so a child failing at start does not spin.
 */
export function startSupervisor({ apiProcesses, workerProcesses, stopTimeoutMs, logger }: SupervisorOptions): Supervisor {
  let stopping = false;
  const slots: Slot[] = [
    ...Array.from({ length: apiProcesses }, (_, index): Slot => ({ role: 'api', index, backoff: new RestartBackoff(), child: null })),
    ...Array.from({ length: workerProcesses }, (_, index): Slot => ({ role: 'workers', index, backoff: new RestartBackoff(), child: null })),
  ];

  const fork = (slot: Slot): void => {
    const child = cluster.fork({ SWITCHYARD_ROLE: slot.role });
    slot.child = child;
    slot.backoff.started();
    logger.info({ role: slot.role, index: slot.index, pid: child.process.pid }, 'process started');
    child.on('exit', (code, signal) => {
      slot.child = null;
      if (stopping) return;
      const delayMs = slot.backoff.nextDelayMs();
      logger.error({ role: slot.role, index: slot.index, pid: child.process.pid, code, signal, restart_in_ms: delayMs }, 'process exited; restarting it');
      setTimeout(() => {
        if (!stopping) fork(slot);
      }, delayMs).unref();
    });
  };

  slots.forEach(fork);
  logger.info({ api_processes: apiProcesses, worker_processes: workerProcesses, pid: process.pid }, 'supervisor started');

  return {
    stop: async () => {
      stopping = true;
      const running = slots.flatMap((slot) => (slot.child ? [slot.child] : []));
      await Promise.all(running.map((child) => stopChild(child, stopTimeoutMs)));
      logger.info('supervisor stopped');
    },
  };
}

function stopChild(child: Worker, timeoutMs: number): Promise<void> {
  if (child.isDead()) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.process.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    // SIGTERM rather than cluster's disconnect: the child's own handler drains requests and jobs.
    child.process.kill('SIGTERM');
  });
}
