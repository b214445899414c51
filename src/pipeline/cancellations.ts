import { setMaxListeners } from 'node:events';
import type { RedisClient as Redis } from '../queue/redis';
import { cancelChannel } from '../queue/replies';

/** How long a cancellation is remembered for a job that no worker has taken yet, in ms. */
const REMEMBER_MS = 10 * 60_000;
/** Cancellations remembered at most (oldest forgotten first). */
const MAX_REMEMBERED = 100_000;
/** Listeners a job's signal may have before Node warns of a leak (see `track`). */
const JOB_SIGNAL_LISTENERS = 64;

/**
 * The controller of a job's signal. The signal is listened to by each of the job's upstream calls (their
 * deadlines) and plugin calls (a deadline and two races each, up to MAX_PLUGIN_CALLS_PER_STEP at once):
 * more than Node's default of 10, which printed a leak warning for a model turn of four plugin calls.
 */
export function jobController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(JOB_SIGNAL_LISTENERS, controller.signal);
  return controller;
}

/**
 * The worker's side of cancellation: the API publishes a request id when its client leaves or its
 * deadline passes, and the worker running that request aborts it (closing the upstream connection).
 * Every worker process hears every cancellation, so one for a job still waiting in the queue is
 * remembered: whichever worker takes that job later finds it cancelled at once, calls no upstream,
 * and still writes the request's one log.
 */
export class Cancellations {
  private readonly running = new Map<string, AbortController>();
  /** Request id → when it was cancelled (epoch ms), in arrival order. */
  private readonly cancelled = new Map<string, number>();
  private ready: Promise<unknown> | undefined;

  constructor(
    private readonly subscriber: Redis,
    private readonly prefix: string,
  ) {}

  start(): Promise<unknown> {
    this.ready ??= this.subscriber.subscribe(cancelChannel(this.prefix)).then(() => {
      this.subscriber.on('message', (_channel: string, requestId: string) => this.cancel(requestId));
    });
    return this.ready;
  }

  /** A signal that fires when the request is cancelled (already fired if it was); call release when it is over. */
  track(requestId: string): { signal: AbortSignal; release: () => void } {
    const controller = jobController();
    if (this.cancelled.delete(requestId)) controller.abort();
    this.running.set(requestId, controller);
    return { signal: controller.signal, release: () => this.running.delete(requestId) };
  }

  private cancel(requestId: string, now = Date.now()): void {
    const running = this.running.get(requestId);
    if (running) {
      running.abort();
      return;
    }
    this.cancelled.set(requestId, now);
    this.forgetOld(now);
  }

  private forgetOld(now: number): void {
    for (const [requestId, at] of this.cancelled) {
      if (at > now - REMEMBER_MS && this.cancelled.size <= MAX_REMEMBERED) return;
      this.cancelled.delete(requestId);
    }
  }
}
