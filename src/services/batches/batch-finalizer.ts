import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { BatchStatus } from '../../generated/prisma/client';
import { batchOutputLine, type LineOutcome } from '../../formats/openai-batch-line';
import type { BatchLineRepository, SettledLine } from '../../store/batch-lines';
import type { BatchRepository, BatchRow } from '../../store/batches';
import type { NewOpenAiFile } from '../../store/openai-files';
import type { FileToKeep } from '../openai-files/openai-file-service';

export type FinalStatus = Extract<BatchStatus, 'completed' | 'cancelled' | 'expired'>;

export interface FinalizerDeps {
  batches: BatchRepository;
  lines: BatchLineRepository;
  /** Stores a file's bytes and returns its row, created with the batch's final status. */
  stage(file: FileToKeep): Promise<NewOpenAiFile>;
}

/** Lines read from PostgreSQL at a time while the files are written. */
const PAGE_LINES = 1000;

/** A JSONL file being written to local disk, with its size and line count. */
class JsonlWriter {
  bytes = 0;
  lines = 0;
  private readonly stream: WriteStream;

  constructor(readonly path: string) {
    this.stream = createWriteStream(path);
  }

  async write(line: string): Promise<void> {
    const text = `${line}\n`;
    this.bytes += Buffer.byteLength(text);
    this.lines += 1;
    if (!this.stream.write(text)) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    this.stream.end();
    await once(this.stream, 'finish');
  }
}

/** The line for the output file (a 200), the error file (a failure, an expiry), or none (cancelled before it ran). */
function placeOf(line: SettledLine, batchId: string): { file: 'output' | 'error'; text: string } | null {
  const identity = { batchId, line: line.line, customId: line.custom_id };
  if (line.state === 'expired') return { file: 'error', text: batchOutputLine(identity, 'expired') };
  if ((line.state !== 'succeeded' && line.state !== 'failed') || !line.outcome) return null;
  const text = batchOutputLine(identity, { requestId: line.request_id ?? '', outcome: line.outcome as unknown as LineOutcome });
  return { file: line.state === 'succeeded' ? 'output' : 'error', text };
}

const STAMP_OF: Record<FinalStatus, 'completed_at' | 'cancelled_at' | 'expired_at'> = {
  completed: 'completed_at',
  cancelled: 'cancelled_at',
  expired: 'expired_at',
};

/**
 * Ends a batch: writes its output and error files in input order from the lines' stored outcomes, stores
 * them, and sets the final status with the files in one transaction; then drops the lines (their bodies
 * and answers are the caller's, and live on only in the files).
 */
export async function finalizeBatch(batch: BatchRow, status: FinalStatus, deps: FinalizerDeps): Promise<void> {
  if (status === 'completed') await deps.batches.transition(batch.id, ['in_progress'], { status: 'finalizing', finalizing_at: new Date() });
  const dir = await mkdtemp(join(tmpdir(), 'switchyard-batch-'));
  try {
    const output = new JsonlWriter(join(dir, 'output.jsonl'));
    const errors = new JsonlWriter(join(dir, 'errors.jsonl'));
    let completed = 0;
    let failed = 0;
    for (let after = 0; ;) {
      const page = await deps.lines.page(batch.id, after, PAGE_LINES);
      if (page.length === 0) break;
      for (const line of page) {
        const place = placeOf(line, batch.id);
        if (!place) continue;
        await (place.file === 'output' ? output : errors).write(place.text);
        if (place.file === 'output') completed += 1;
        else failed += 1;
      }
      after = page[page.length - 1]?.line ?? after;
    }
    await Promise.all([output.close(), errors.close()]);
    const stage = (writer: JsonlWriter, suffix: string) =>
      writer.lines > 0
        ? deps.stage({
            orgId: batch.org_id,
            purpose: 'batch_output',
            filename: `${batch.id}_${suffix}.jsonl`,
            path: writer.path,
            bytes: writer.bytes,
            lineCount: writer.lines,
          })
        : null;
    const [outputFile, errorFile] = await Promise.all([stage(output, 'output'), stage(errors, 'error')]);
    const ended = await deps.batches.end(batch.id, {
      from: ['in_progress', 'finalizing', 'cancelling'],
      files: [outputFile, errorFile].filter((file): file is NewOpenAiFile => file !== null),
      data: {
        status,
        [STAMP_OF[status]]: new Date(),
        output_file_id: outputFile?.id ?? null,
        error_file_id: errorFile?.id ?? null,
        completed_count: completed,
        failed_count: failed,
      },
    });
    if (ended) await deps.lines.deleteAll(batch.id);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
