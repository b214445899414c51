/** How far back the budget looks, in ms, and in how many slices it forgets the oldest part. */
const WINDOW_MS = 10_000;
const SLICES = 10;

export interface RetryBudgetOptions {
  /** Retries allowed per request in the window (0.2: one retry per five requests). */
  ratio: number;
  /** Retries always allowed in the window, so a quiet service can still retry. */
  minRetries: number;
  now?: () => number;
}

interface Slice {
  start: number;
  requests: number;
  retries: number;
}

/**
 * A retry budget as Envoy's `retry_budget` and gRPC's retry throttling have: retries may be at most a
 * share of the requests of the last 10 s (or a small minimum), so a failing upstream gets no retry
 * storm on top of the traffic. It counts this process's requests only.
 */
export class RetryBudget {
  private readonly slices: Slice[] = [];
  private readonly now: () => number;

  constructor(private readonly options: RetryBudgetOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A request starts (its first upstream call is not a retry). */
  noteRequest(): void {
    this.current().requests += 1;
  }

  /** Whether one more retry fits the budget; if so, it is counted. */
  tryRetry(): boolean {
    const slice = this.current();
    let requests = 0;
    let retries = 0;
    for (const s of this.slices) {
      requests += s.requests;
      retries += s.retries;
    }
    if (retries + 1 > Math.max(this.options.minRetries, this.options.ratio * requests)) return false;
    slice.retries += 1;
    return true;
  }

  /** The slice now being counted, after dropping those older than the window. */
  private current(): Slice {
    const now = this.now();
    const sliceMs = WINDOW_MS / SLICES;
    const start = now - (now % sliceMs);
    while (this.slices.length > 0 && (this.slices[0]?.start ?? 0) <= now - WINDOW_MS) this.slices.shift();
    const last = this.slices.at(-1);
    if (last && last.start === start) return last;
    const slice = { start, requests: 0, retries: 0 };
    this.slices.push(slice);
    return slice;
  }
}
