import { afterLoopTime } from './loop-timer';

/** Calls `onExpiry` after `ms`; answers what cancels it. */
type Timer = (ms: number, onExpiry: () => void) => () => void;

const wallClock: Timer = (ms, onExpiry) => {
  const timer = setTimeout(onExpiry, ms);
  return () => clearTimeout(timer);
};

/**
 * Resolves with true once `work` fulfils, or with false after `ms` of wall-clock time (the work goes on);
 * rejects if the work rejects first. The timer is cleared either way. For a budget someone outside keeps
 * on the wall clock too: a shutdown's grace, which the supervisor or the orchestrator enforces.
 */
export function finishesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return race(work, ms, wallClock);
}

/**
 * As finishesWithin, but `ms` of the process's own time (afterLoopTime): time the event loop was held does
 * not count, and an answer that came while it was held wins. For every wait on a dependency's answer
 * (queueing a job, a claim, a log's commit, a readiness probe): such a wait tells whether the dependency
 * answers, not whether this process could read the answer in time.
 */
export function finishesWithinLoopTime(work: Promise<unknown>, ms: number): Promise<boolean> {
  return race(work, ms, afterLoopTime);
}

function race(work: Promise<unknown>, ms: number, timer: Timer): Promise<boolean> {
  // One promise and one reaction: it runs once per completion (the log's commit), where a race of a
  // timeout promise and the work, with a `finally`, made five.
  return new Promise<boolean>((resolve, reject) => {
    const cancel = timer(ms, () => resolve(false));
    work.then(
      () => {
        cancel();
        resolve(true);
      },
      (err: unknown) => {
        cancel();
        reject(err);
      },
    );
  });
}
