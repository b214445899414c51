/** How often the probe's timer is due, in ms. */
const TICK_MS = 10;
/** Lateness below this, in ms, is a timer's ordinary jitter and not counted as the loop being held. */
const JITTER_MS = 3;

export interface LoopStalls {
  /** The time the loop was held since the watch began (each tick's lateness beyond jitter, summed), in ms. */
  heldMs(): number;
  /** The wall-clock time since the watch began less `heldMs()`: the time the process had to run, in ms. */
  ownMs(): number;
  /** The longest single stall seen, in ms. */
  longestMs(): number;
  stop(): void;
}

/**
 * Watches this process's event loop from now on. The app, its workers, the simulators and the test all run
 * on it: while it is held (a garbage collection, a module compiled on first use, a host too busy to schedule
 * the process), none of them can act, so a test that bounds how long something took bounds `ownMs()`, or
 * allows `heldMs()` on top of its bound: it checks the service's own delay, not the machine's.
 */
export function watchLoopStalls(): LoopStalls {
  let held = 0;
  let longest = 0;
  let due = performance.now() + TICK_MS;
  const tally = () => {
    const now = performance.now();
    const lateMs = now - due;
    due = now + TICK_MS;
    if (lateMs < JITTER_MS) return;
    held += lateMs;
    longest = Math.max(longest, lateMs);
  };
  const timer = setInterval(tally, TICK_MS);
  timer.unref();
  const startedAt = performance.now();
  const heldMs = () => {
    // A stall under way now (the caller's own synchronous work aside) counts too.
    tally();
    return held;
  };
  return {
    heldMs,
    ownMs: () => performance.now() - startedAt - heldMs(),
    longestMs: () => longest,
    stop: () => clearInterval(timer),
  };
}
