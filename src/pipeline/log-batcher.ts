import type { Logger } from 'pino';
import { Prisma } from '../generated/prisma/client';
import type { Db } from '../store/db';
import type { LogRow } from './log-rows';

/** Column names come only from Prisma's list of the table's columns, never from data. */
const LOG_COLUMNS = new Set<string>(Object.values(Prisma.LogScalarFieldEnum));

function columnsOf(rows: LogRow[]): string {
  const names = new Set(rows.flatMap((row) => Object.keys(row)).filter((name) => LOG_COLUMNS.has(name)));
  return [...names].map((name) => `"${name}"`).join(', ');
}

function insertFromJson(rows: LogRow[], parameter: string): string {
  const columns = columnsOf(rows);
  return `INSERT INTO logs (${columns}) SELECT ${columns} FROM json_populate_recordset(NULL::logs, ${parameter}::json)`;
}

/** BigInt timestamps (ms) fit a JSON number exactly. */
function rowsJson(rows: LogRow[]): string {
  return JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value));
}

interface PendingWrite {
  parent: LogRow;
  children: LogRow[];
  done: (err?: unknown) => void;
}

export interface LogBatcherOptions {
  /** Requests written in one transaction, at most. */
  maxBatch?: number;
  /** How long a log may wait for others to share its transaction, in ms. */
  maxDelayMs?: number;
}

/**
 * Writes request logs in batches: many requests' rows in one transaction of two inserts, so logging
 * keeps up with the request rate. A batch that fails is retried one request at a time, so one bad
 * row loses nothing else.
 */
export class LogBatcher {
  private pending: PendingWrite[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight = new Set<Promise<void>>();
  private readonly maxBatch: number;
  private readonly maxDelayMs: number;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    options: LogBatcherOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 200;
    this.maxDelayMs = options.maxDelayMs ?? 5;
  }

  write(rows: { parent: LogRow; children: LogRow[] }): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ ...rows, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (this.pending.length >= this.maxBatch) this.flushNow();
      else this.timer ??= setTimeout(() => this.flushNow(), this.maxDelayMs);
    });
  }

  /** Writes what is pending and waits for every write under way. */
  async close(): Promise<void> {
    this.flushNow();
    await Promise.all(this.inFlight);
  }

  private flushNow(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const writing = this.writeBatch(batch).finally(() => this.inFlight.delete(writing));
    this.inFlight.add(writing);
  }

  private async writeBatch(batch: PendingWrite[]): Promise<void> {
    try {
      await this.insert(batch);
      batch.forEach((write) => write.done());
    } catch (err) {
      if (batch.length === 1) {
        this.logger.error({ err, request_id: batch[0]?.parent.id }, 'request log not written');
        batch[0]?.done(err);
        return;
      }
      for (const write of batch) await this.writeBatch([write]);
    }
  }

  /**
   * One statement for the whole batch: the rows travel as JSON and `json_populate_recordset` types them
   * by the table's own columns. Parents go first in a CTE, so the children's `parent_id` references are
   * satisfied when the statement ends. (Prisma's createMany costs several times the CPU per row.)
   */
  private async insert(batch: PendingWrite[]): Promise<void> {
    const parents = batch.map((write) => write.parent);
    const children = batch.flatMap((write) => write.children);
    const parentInsert = insertFromJson(parents, '$1');
    if (children.length === 0) {
      await this.db.$executeRawUnsafe(parentInsert, rowsJson(parents));
      return;
    }
    await this.db.$executeRawUnsafe(`WITH parents AS (${parentInsert}) ${insertFromJson(children, '$2')}`, rowsJson(parents), rowsJson(children));
  }
}
