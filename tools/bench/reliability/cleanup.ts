/** Things to undo, newest first, whether the run succeeds, fails or is interrupted. */
export class Cleanups {
  private readonly steps: { name: string; run: () => Promise<unknown> }[] = [];
  /** Set once cleaning up has begun: the run must start nothing more. */
  stopping = false;
  private running: Promise<void> | null = null;

  constructor(private readonly say: (text: string) => void) {}

  push(name: string, run: () => Promise<unknown>): void {
    this.steps.push({ name, run });
  }

  /**
   * Runs every step once. A second call (a signal, then an error the interrupted run throws) waits for the
   * first to finish rather than exiting halfway through it.
   */
  runAll(): Promise<void> {
    this.running ??= this.drain();
    return this.running;
  }

  private async drain(): Promise<void> {
    this.stopping = true;
    while (this.steps.length > 0) {
      const step = this.steps.pop();
      if (!step) break;
      await step.run().catch((err: unknown) => this.say(`cleanup "${step.name}" failed: ${String(err)}`));
    }
  }

  /**
   * Ctrl-C or a TERM from CI cleans up before exiting (130, as a shell reports an interrupt); so does an
   * error nothing caught (exit 1), so no process, database or Redis key is left behind.
   */
  onSignals(): void {
    for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
      process.once(event, (err: unknown) => {
        this.say(`\n${event}: ${err instanceof Error ? err.stack : String(err)}\ncleaning up`);
        this.runAll().finally(() => process.exit(1));
      });
    }
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        this.say(`\n${signal}: stopping every child process and removing the database and Redis keys`);
        this.runAll().finally(() => process.exit(130));
      });
    }
  }
}
