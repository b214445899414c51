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
}

/**
 * Hands a batch's pending lines to the `batch-lines` queue, as many as its Space's cap on lines in
 * flight leaves room for. Jobs carry ids only. Called by the coordinator on each tick and by a line's
 * worker when the line finishes, so a Space's slots stay busy between ticks.
 */
export class LineFeeder {
  constructor(private readonly deps: LineFeederDeps) {}

  async feed(batch: { id: string; app_id: string }): Promise<number> {
    const lines = await this.deps.lines.feed(batch.id, batch.app_id, this.deps.spaceConcurrency);
    await this.enqueue(batch.id, lines);
    return lines.length;
  }

  /**
   * Looks again at the lines in flight after a crash, a lapse, or Redis losing its data: a line whose job
   * failed for good is retried, and a line without a job gets one at once, queued or running. A running
   * line is most likely still running in a live worker (Redis forgot the job, not the worker its run):
   * its new job's run finds the line's claim held (docs/reliability.md, "Runs at most once"), waits for
   * that run and leaves the line to it; if that worker died too, the new run takes the claim over and
   * answers the line. Either way the line is answered once.
   */
  async recover(batchId: string): Promise<void> {
    const missing: number[] = [];
    for (const line of await this.deps.lines.inFlight(batchId)) {
      const job = await this.deps.queue.getJob(lineJobId(batchId, line));
      if (!job) missing.push(line);
      else if (await job.isFailed()) await job.retry('failed');
    }
    await this.enqueue(batchId, missing);
  }

  private async enqueue(batchId: string, lines: number[]): Promise<void> {
    if (lines.length === 0) return;
    await this.deps.queue.addBulk(lines.map((line) => ({ name: 'line', data: { batchId, line }, opts: { jobId: lineJobId(batchId, line) } })));
  }
}
