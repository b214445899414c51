/** Which limit ended a call: the wait for the next byte, or the whole call's length. */
export type DeadlineKind = 'idle' | 'call';

export type DeadlineLimits =
  | {
      /** Longest wait for the next byte (the first one included), in ms; `extend()` restarts it. */
      idleMs: number;
      /** Longest whole call, in ms; never restarted. Absent: only the idle limit applies. */
      callMs?: number;
    }
  | { idleMs?: undefined; callMs: number };

/**
 * An AbortSignal that fires when the caller aborts, when `idleMs` pass without `extend()`, or when
 * `callMs` pass in all. Streams call `extend()` on every chunk, so a hung upstream costs `idleMs`
 * while a slow but steady one runs until `callMs`. With `callMs` alone it is a plain time limit on
 * some work (a plugin run, a backend call), cleared once the work is over: a fraction of the CPU of
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])` (37 µs against 2 µs here, whose timer and
 * weak references also outlive the work).
 */
export class Deadline {
  private readonly controller = new AbortController();
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly callTimer: NodeJS.Timeout | undefined;
  private expiredBy: DeadlineKind | undefined;
  private readonly onParentAbort = () => this.controller.abort(this.parent.reason);
  constructor(
    private readonly parent: AbortSignal,
    private readonly limits: DeadlineLimits,
  ) {
    if (parent.aborted) this.controller.abort(parent.reason);
    else parent.addEventListener('abort', this.onParentAbort, { once: true });
    this.arm();
    const { callMs } = this.limits;
    if (callMs !== undefined) {
      this.callTimer = setTimeout(() => this.expire('call', callMs), callMs);
      this.callTimer.unref();
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True when a limit (not the caller) ended the call. */
  get timedOut(): boolean {
    return this.expiredBy !== undefined;
  }

  /** Which limit ended the call, if one did. */
  get expired(): DeadlineKind | undefined {
    return this.expiredBy;
  }

  /** What a timeout message says about the limit that ended the call. */
  describe(): string {
    if (this.expiredBy === 'call') return `did not finish within ${this.limits.callMs ?? this.limits.idleMs ?? 0} ms`;
    return `sent nothing for ${this.limits.idleMs ?? 0} ms`;
  }

  extend(): void {
    if (!this.controller.signal.aborted) this.arm();
  }

  clear(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    clearTimeout(this.callTimer);
    this.parent.removeEventListener('abort', this.onParentAbort);
  }

  private expire(kind: DeadlineKind, ms: number): void {
    if (this.controller.signal.aborted) return;
    this.expiredBy = kind;
    this.controller.abort(new Error(`no answer within ${ms} ms`));
  }

  /** Starts the idle timer, or restarts it (a stream does for every chunk: `refresh` makes no new timer). */
  private arm(): void {
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    const { idleMs } = this.limits;
    if (idleMs === undefined) return;
    this.idleTimer = setTimeout(() => this.expire('idle', idleMs), idleMs);
    this.idleTimer.unref();
  }
}
