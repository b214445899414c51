import type { Queue } from 'bullmq';
import type { BatchLineJob } from '../../queue/payloads';
import type { BatchLineRepository } from '../../store/batch-lines';

/** A line's job id: one job per line, so handing a line over twice (after a crash) queues it once. */
export function lineJobId(batchId: string, line: number): string {
  return `${batchId}-${line}`;
}

export interface LineFeederDeps {
  lines: BatchLineRepository;
  queue: Queue<BatchLineJob>;
  spaceConcurrency: number;
  /**
   * How long a running line may go without a job before it is handed over again, in ms: longer than a
   * line can run (COMPLETION_TIMEOUT_MS and a margin), so a line whose worker is alive is never run twice.
   */
  runningGraceMs: number;
}

/**
 * Hands a batch's pending lines to the `batch-lines` queue, as many as its Space's cap on lines in
 * flight leaves room for. Jobs carry ids only. Called by the coordinator on each tick and by a line's
 * worker when the line finishes, so a Space's slots stay busy between ticks.
 */
export class LineFeeder {
  /** Per batch, since when (epoch ms) each running line has been seen without a job. */
  private readonly jobless = new Map<string, Map<number, number>>();

  constructor(private readonly deps: LineFeederDeps) {}

  async feed(batch: { id: string; app_id: string }): Promise<number> {
    const lines = await this.deps.lines.feed(batch.id, batch.app_id, this.deps.spaceConcurrency);
    await this.enqueue(batch.id, lines);
    return lines.length;
  }

  /**
   * Looks again at the lines in flight after a crash, a lapse, or Redis losing its data: a line whose job
   * failed for good is retried; a queued line without a job (the feeder died in between, or Redis forgot
   * it) gets one at once. A running line without a job is most likely still running in a live worker
   * (Redis forgot the job, not the worker its run): it gets one only once it has been jobless longer than
   * any run lasts, which means its worker died too. Lines are claimed in PostgreSQL, so a line is answered once.
   */
  async recover(batchId: string, now = Date.now()): Promise<void> {
    const missing: number[] = [];
    for (const line of await this.deps.lines.inFlight(batchId)) {
      const job = await this.deps.queue.getJob(lineJobId(batchId, line));
      if (!job) missing.push(line);
      else if (await job.isFailed()) await job.retry('failed');
    }
    await this.enqueue(batchId, await this.dueOf(batchId, missing, now));
  }

  /** The missing lines to hand over now: the queued ones, and the running ones jobless for longer than the grace. */
  private async dueOf(batchId: string, missing: number[], now: number): Promise<number[]> {
    const seen = this.jobless.get(batchId) ?? new Map<number, number>();
    const stillJobless = new Map<number, number>();
    const due: number[] = [];
    for (const line of missing) {
      const [row] = await this.deps.lines.page(batchId, line - 1, 1);
      if (row?.line !== line) continue;
      if (row.state === 'queued') {
        due.push(line);
      } else if (row.state === 'running') {
        const since = seen.get(line) ?? now;
        if (now - since >= this.deps.runningGraceMs) due.push(line);
        else stillJobless.set(line, since);
      }
    }
    if (stillJobless.size > 0) this.jobless.set(batchId, stillJobless);
    else this.jobless.delete(batchId);
    return due;
  }

  private async enqueue(batchId: string, lines: number[]): Promise<void> {
    if (lines.length === 0) return;
    await this.deps.queue.addBulk(lines.map((line) => ({ name: 'line', data: { batchId, line }, opts: { jobId: lineJobId(batchId, line) } })));
  }
}
