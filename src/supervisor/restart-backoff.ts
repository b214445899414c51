/** A child that ran at least this long is restarted at once, in ms. */
const HEALTHY_RUN_MS = 10_000;
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

/**
 * When to restart a child that exited: at once after a healthy run, else after a delay that doubles
 * with each quick exit in a row (500 ms … 30 s), so a child failing at start does not spin a core.
 */
export class RestartBackoff {
  private startedAt = 0;
  private quickExits = 0;

  constructor(private readonly now: () => number = Date.now) {}

  started(): void {
    this.startedAt = this.now();
  }

  nextDelayMs(): number {
    if (this.now() - this.startedAt >= HEALTHY_RUN_MS) {
      this.quickExits = 0;
      return 0;
    }
    this.quickExits += 1;
    return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (this.quickExits - 1));
  }
}
