import type { Logger } from 'pino';
import { loopOwnerDuring } from './loop-owner';
import { metrics } from './metrics';

export interface LoopWatchdogOptions {
  /** A timer late by at least this many ms is a stall: counted, and logged with the request that held the loop. */
  thresholdMs: number;
  logger: Logger;
}

/** How often the watchdog's timer is due, in ms; a late timer measures the loop's stall. */
const MAX_TICK_MS = 100;

/**
 * Watches this process's event loop: a timer that fires late by `thresholdMs` or more means the loop was
 * held that long. Each stall adds to `switchyard_event_loop_stalls_total` and
 * `switchyard_event_loop_stall_seconds`, and logs one warning naming the request that held the loop (see
 * loop-owner). Its cost is one timer callback per tick.
 */
export function startLoopWatchdog({ thresholdMs, logger }: LoopWatchdogOptions): () => void {
  const tickMs = Math.max(1, Math.min(MAX_TICK_MS, Math.floor(thresholdMs / 2)));
  const { loopStalls, loopStallSeconds } = metrics();
  let due = performance.now() + tickMs;
  const timer = setInterval(() => {
    const now = performance.now();
    const lagMs = now - due;
    const lastTick = due - tickMs;
    due = now + tickMs;
    if (lagMs < thresholdMs) return;
    loopStalls.inc();
    loopStallSeconds.observe(lagMs / 1000);
    const owner = loopOwnerDuring(lastTick, now);
    logger.warn({ lag_ms: Math.round(lagMs), ...(owner ? { request_id: owner } : {}) }, 'event loop stalled');
  }, tickMs);
  timer.unref();
  return () => clearInterval(timer);
}
