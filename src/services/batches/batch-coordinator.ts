import type { Logger } from 'pino';
import type { BatchLineState, BatchStatus } from '../../generated/prisma/client';
import type { BatchLineError } from '../../schemas/batches';
import type { BatchLineRepository } from '../../store/batch-lines';
import { FINAL_BATCH_STATUSES, type BatchRepository, type BatchRow } from '../../store/batches';
import type { OpenAiFileService } from '../openai-files/openai-file-service';
import { finalizeBatch, type FinalStatus } from './batch-finalizer';
import type { LineFeeder } from './line-feeder';
import { validateInput } from './validate-input';

export interface CoordinatorDeps {
  batches: BatchRepository;
  lines: BatchLineRepository;
  files: OpenAiFileService;
  feeder: LineFeeder;
  logger: Logger;
}

/** What bull-board shows of a batch's job. */
export interface BatchProgress {
  status: BatchStatus;
  total: number;
  completed: number;
  failed: number;
  in_flight: number;
}

/**
 * How often a coordinator looks at its batch, in ms: how soon a cancel or an expiry is acted on. Lines are
 * fed between ticks too (each finished line hands over the next), so a tick is not a line's pace.
 */
const TICK_MS = 500;
/**
 * How often it looks again at the lines in flight for lost jobs, in ms (and once when it starts): after
 * Redis lost its data, the coordinator re-added by the workers' resume check (every 10 s) hands the lost
 * lines over at once, and one that kept running does within this.
 */
const RECOVER_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Counts = Record<BatchLineState, number>;

function progressOf(status: BatchStatus, counts: Counts, total: number): BatchProgress {
  return { status, total, completed: counts.succeeded, failed: counts.failed + counts.expired, in_flight: counts.queued + counts.running };
}

/**
 * Runs one batch from `validating` to its end, as the job of the `batches` queue whose id is the batch's.
 * Every step is idempotent and reads its state from PostgreSQL, so a coordinator whose worker died is
 * simply started again by another: validation inserts only missing lines, lines in flight get their
 * jobs back, and finalising writes one set of files.
 */
export class BatchCoordinator {
  constructor(private readonly deps: CoordinatorDeps) {}

  /**
   * Returns the batch's final status (null: the batch is gone), or 'interrupted' when `stop` fired
   * first (the worker is shutting down, or this coordinator's job was lost): the batch is then still
   * running and another coordinator goes on.
   */
  async coordinate(
    batchId: string,
    { report, stop }: { report(progress: BatchProgress): Promise<void>; stop: AbortSignal },
  ): Promise<BatchStatus | 'interrupted' | null> {
    let batch = await this.deps.batches.byId(batchId);
    if (!batch) return null;
    if (batch.status === 'validating') await this.validate(batch);
    let recoveredAt = 0;
    let reported = '';
    for (;;) {
      if (stop.aborted) return 'interrupted';
      batch = await this.deps.batches.byId(batchId);
      if (!batch) return null;
      if (FINAL_BATCH_STATUSES.includes(batch.status)) {
        await report({ status: batch.status, total: batch.total_count, completed: batch.completed_count, failed: batch.failed_count, in_flight: 0 });
        return batch.status;
      }
      if (Date.now() - recoveredAt > RECOVER_MS) {
        await this.deps.feeder.recover(batch.id);
        recoveredAt = Date.now();
      }
      const counts = await this.step(batch);
      // Ended: the next turn reports the final counts at once.
      if (!counts) continue;
      const progress = progressOf(batch.status, counts, batch.total_count);
      // Written only when they moved: an idle tick of a long batch costs reads only.
      if (JSON.stringify(progress) !== reported) {
        await this.deps.batches.setCounts(batch.id, { total: batch.total_count, completed: progress.completed, failed: progress.failed });
        await report(progress);
        reported = JSON.stringify(progress);
      }
      await sleep(TICK_MS);
    }
  }

  /** One look at the batch: settle, feed or finish it. Returns the line counts, or null once it has ended. */
  private async step(batch: BatchRow): Promise<Counts | null> {
    const { lines } = this.deps;
    if (batch.status === 'finalizing') return this.finish(batch, 'completed');
    if (batch.status === 'cancelling') await lines.settle(batch.id, ['pending', 'queued'], 'cancelled');
    const expired = batch.status === 'in_progress' && Date.now() >= batch.expires_at.getTime();
    if (expired) await lines.settle(batch.id, ['pending', 'queued'], 'expired');
    if (batch.status === 'in_progress' && !expired) await this.deps.feeder.feed(batch);
    const counts = await lines.counts(batch.id);
    const open = counts.pending + counts.queued + counts.running;
    if (batch.status === 'cancelling' && counts.running === 0) return this.finish(batch, 'cancelled');
    if (expired && counts.running === 0) return this.finish(batch, 'expired');
    if (batch.status === 'in_progress' && open === 0) return this.finish(batch, 'completed');
    return counts;
  }

  private async finish(batch: BatchRow, status: FinalStatus): Promise<null> {
    await finalizeBatch(batch, status, { batches: this.deps.batches, lines: this.deps.lines, stage: (file) => this.deps.files.stage(file) });
    this.deps.logger.info({ batch_id: batch.id, status }, 'batch ended');
    return null;
  }

  /** Reads the input file once: every line checked, valid ones stored (bodies in PostgreSQL, not Redis). */
  private async validate(batch: BatchRow): Promise<void> {
    const fail = async (errors: BatchLineError[], total: number) => {
      await this.deps.lines.deleteAll(batch.id);
      await this.deps.batches.transition(batch.id, ['validating'], { status: 'failed', failed_at: new Date(), errors, total_count: total });
    };
    const file = await this.deps.files.find(batch.org_id, batch.input_file_id);
    if (!file)
      return fail([{ code: 'file_not_found', message: `The input file ${batch.input_file_id} no longer exists.`, param: 'input_file_id', line: null }], 0);
    const { total, errors } = await validateInput(await this.deps.files.open(file), {
      endpoint: batch.endpoint,
      keep: (valid) =>
        this.deps.lines.insert(
          valid.map((line) => ({ batch_id: batch.id, line: line.line, app_id: batch.app_id, custom_id: line.customId, body: line.body as object })),
        ),
    });
    if (errors.length > 0) return fail(errors, total);
    if (total === 0) return fail([{ code: 'empty_file', message: 'The input file has no requests.', param: 'input_file_id', line: null }], 0);
    await this.deps.batches.transition(batch.id, ['validating'], { status: 'in_progress', in_progress_at: new Date(), total_count: total });
    // Cancelled while validating: the lines wait as pending and the loop cancels them.
    await this.deps.batches.setTotal(batch.id, total);
  }
}
