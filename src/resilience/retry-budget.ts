/** How far back the budget looks, in ms, and in how many slices it forgets the oldest part. */
const WINDOW_MS = 10_000;
const SLICES = 10;
/** Models tracked at most (each holds a few numbers); past that the oldest-seen are forgotten. */
const MAX_MODELS = 10_000;

export interface RetryBudgetOptions {
  /** Share of a model's calls in the window that may fail before retries to it are withheld (0.2: one in five). */
  ratio: number;
  /** Failures a model may always have in the window before retries to it are withheld. */
  minRetries: number;
  now?: () => number;
}

interface Slice {
  start: number;
  calls: number;
  failures: number;
}

/**
 * Retry throttling per model, like gRPC's retry throttling and Envoy's budget per upstream: a call
 * beyond a request's second (a further retry of the same model, or a further failover) goes to a model
 * only while that model's failures of the last 10 s are at most `ratio` of its calls, or `minRetries`.
 * A request's first retry is not asked (the attempt runner's GUARANTEED_CALLS): a failure that hits
 * every request once makes every model fail half its calls, far past any ratio, and one retry is what
 * answers it. A model that keeps failing gets no retry storm on top of its own traffic (two calls per
 * request at most, and its breaker keeps the requests away), while a healthy fallback still takes the
 * failovers: the budget is spent by the model that fails, not by the request that retries. Counted per
 * worker process.
 */
export class RetryBudget {
  private readonly models = new Map<string, Slice[]>();
  private readonly now: () => number;

  constructor(private readonly options: RetryBudgetOptions) {
    this.now = options.now ?? Date.now;
  }

  /** One call to the model ended; `failed` as the circuit breakers count failures (429, 5xx, timeouts, broken connections). */
  record(modelId: string, failed: boolean): void {
    const slice = this.current(modelId);
    slice.calls += 1;
    if (failed) slice.failures += 1;
  }

  /** Whether a call beyond a request's second (a retry or a failover) may go to this model now. */
  allows(modelId: string): boolean {
    let calls = 0;
    let failures = 0;
    for (const slice of this.slicesOf(modelId)) {
      calls += slice.calls;
      failures += slice.failures;
    }
    return failures <= Math.max(this.options.minRetries, this.options.ratio * calls);
  }

  /** The model's slices of the window, the oldest dropped. */
  private slicesOf(modelId: string): Slice[] {
    const slices = this.models.get(modelId) ?? [];
    const now = this.now();
    while (slices.length > 0 && (slices[0]?.start ?? 0) <= now - WINDOW_MS) slices.shift();
    return slices;
  }

  /** The slice now being counted for the model. */
  private current(modelId: string): Slice {
    const slices = this.slicesOf(modelId);
    if (!this.models.has(modelId)) {
      if (this.models.size >= MAX_MODELS) this.models.clear();
      this.models.set(modelId, slices);
    }
    const now = this.now();
    const start = now - (now % (WINDOW_MS / SLICES));
    const last = slices.at(-1);
    if (last && last.start === start) return last;
    const slice = { start, calls: 0, failures: 0 };
    slices.push(slice);
    return slice;
  }
}
