/**
 * What a benchmark started (processes, databases, folders), undone in reverse order when it ends or
 * is interrupted (SIGINT, SIGTERM). A step that fails is reported, and the others still run.
 */
export class Cleanups {
  private readonly steps: { name: string; run: () => Promise<unknown> }[] = [];

  constructor(private readonly say: (text: string) => void) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void this.run().finally(() => process.exit(130)));
  }

  push(step: { name: string; run: () => Promise<unknown> }): void {
    this.steps.push(step);
  }

  async run(): Promise<void> {
    for (let step = this.steps.pop(); step; step = this.steps.pop()) {
      const { name, run } = step;
      await run().catch((err: unknown) => this.say(`cleanup "${name}" failed: ${String(err)}`));
    }
  }
}
