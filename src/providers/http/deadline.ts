/**
 * An AbortSignal that fires when the caller aborts or when `ms` pass without `extend()`.
 * Non-streaming calls use it as a total deadline; streams call `extend()` on every chunk, so it
 * becomes an idle timeout between chunks.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private expired = false;
  private readonly onParentAbort = () => this.controller.abort(this.parent.reason);

  constructor(
    private readonly parent: AbortSignal,
    private readonly ms: number,
  ) {
    if (parent.aborted) this.controller.abort(parent.reason);
    else parent.addEventListener('abort', this.onParentAbort, { once: true });
    this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True when the deadline (not the caller) ended the call. */
  get timedOut(): boolean {
    return this.expired;
  }

  extend(): void {
    if (!this.controller.signal.aborted) this.arm();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.parent.removeEventListener('abort', this.onParentAbort);
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(new Error(`no answer within ${this.ms} ms`));
    }, this.ms);
    this.timer.unref();
  }
}
