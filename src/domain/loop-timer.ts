/**
 * A timer late by less than this, in ms, is the loop's ordinary jitter (a few callbacks, a minor garbage
 * collection); one late by more found the loop held, or the process not scheduled, for that long.
 */
export const HELD_LOOP_MS = 20;

/**
 * Calls `onExpiry` once the process has had `ms` of its own time, then answers nothing more; the function
 * it answers cancels it. The service's waits on its own dependencies (queueing a job, committing a claim or
 * a log) give up after a few seconds so that a Redis or PostgreSQL that is away costs a request that long.
 * Measured on the wall clock, a wait also loses the time its own process could not run: a long synchronous
 * task, a garbage collection, a host so busy it did not schedule the process. So:
 *
 * - a timer that fires `late` ms late (the loop was held that long, at the end of the wait, when it matters)
 *   waits `late` ms more, up to `ms` more in all: a peer starved on the same host gets the time back;
 * - and the verdict waits for the I/O of the turn in which the timer fired (`setImmediate` runs after the
 *   poll phase): an answer that arrived while the loop was held is read and cancels the expiry, where a
 *   plain timer, whose phase comes first, would have declared it missing.
 *
 * A dependency that is truly away still costs `ms` on a free loop, and at most twice that on a held one.
 */
export function afterLoopTime(ms: number, onExpiry: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let check: NodeJS.Immediate | undefined;
  let extraLeftMs = ms;
  const arm = (delayMs: number) => {
    const due = performance.now() + delayMs;
    timer = setTimeout(() => {
      timer = undefined;
      const lateMs = performance.now() - due;
      check = setImmediate(() => {
        check = undefined;
        if (lateMs < HELD_LOOP_MS || extraLeftMs <= 0) return onExpiry();
        const extraMs = Math.min(lateMs, extraLeftMs);
        extraLeftMs -= extraMs;
        arm(extraMs);
      });
    }, delayMs);
  };
  arm(ms);
  return () => {
    clearTimeout(timer);
    if (check) clearImmediate(check);
  };
}
