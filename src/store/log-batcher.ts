import type { Logger } from 'pino';
import type { Pool } from 'pg';
import { Prisma } from '../generated/prisma/client';
import { sqlPoolOf, type Db } from './db';

/**
 * One row of `logs` as the pipeline builds it (pipeline/log-rows.ts): Prisma's input type, with the
 * timestamp (milliseconds since the epoch, a BigInt column) as a number, exact in JSON up to 2^53, so
 * that the rows go to JSON.stringify as they are, with no copy.
 */
export type LogInsert = Omit<Prisma.LogCreateManyInput, 'timestamp'> & { timestamp: number };

/**
 * Column names come only from Prisma's list of the table's columns, never from data. Each has a bit:
 * a row's set of columns is their sum, exact in a double for up to 53 columns.
 */
const COLUMN_BITS = new Map<string, number>(Object.values(Prisma.LogScalarFieldEnum).map((name, i) => [name, 2 ** i]));
if (COLUMN_BITS.size > 53) throw new Error('logs has more columns than a column set can count');

/** Each set of columns seen, as the column list of an INSERT, by its sum of bits. */
const columnLists = new Map<number, string>();

function columnListOf(set: number): string {
  let list = columnLists.get(set);
  if (list === undefined) {
    list = [...COLUMN_BITS]
      .filter(([, bit]) => Math.floor(set / bit) % 2 === 1)
      .map(([name]) => `"${name}"`)
      .join(', ');
    columnLists.set(set, list);
  }
  return list;
}

/**
 * The columns a row sets (a key holding undefined sets nothing: JSON drops it), as an INSERT's column
 * list. A pass over the row's keys adding numbers, then a lookup: the list is built once per set of
 * columns, not once per row.
 */
function columnsOf(row: LogInsert): string {
  let set = 0;
  for (const name in row) {
    const bit = COLUMN_BITS.get(name);
    if (bit !== undefined && row[name as keyof LogInsert] !== undefined) set += bit;
  }
  return columnListOf(set);
}

/**
 * Rows grouped by the columns they set, each group inserted with its own column list: a column a row
 * leaves out must take its default, as with Prisma's createMany, where one list for every row would
 * give it NULL (a plugin step's row sets no token counts, which are NOT NULL).
 */
function byColumns(rows: LogInsert[]): { columns: string; rows: LogInsert[] }[] {
  const groups = new Map<string, LogInsert[]>();
  for (const row of rows) {
    const columns = columnsOf(row);
    const group = groups.get(columns);
    if (group) group.push(row);
    else groups.set(columns, [row]);
  }
  return [...groups].map(([columns, grouped]) => ({ columns, rows: grouped }));
}

/**
 * The rows arrive as one jsonb parameter: PostgreSQL parses it once, and the jsonb columns (the request,
 * the answer) are taken from it as they are. With a `json` parameter each of them is parsed a second
 * time, into jsonb: `tsx tools/bench/log-schema-costs.ts` measured 0.36–0.39 against 0.40–0.45 ms of
 * PostgreSQL CPU per request (parent and child row, batches of 16).
 *
 * Idempotent: a row whose id exists is skipped (`ON CONFLICT (id) DO NOTHING`), so a request's log
 * written twice (a job run again) neither fails its batch nor makes a second log. `where` keeps only
 * some of the rows (children of parents this statement inserted).
 */
function insertFromJson(columns: string, parameter: string, where = ''): string {
  return `INSERT INTO logs (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::logs, ${parameter}::jsonb) r${where} ON CONFLICT (id) DO NOTHING`;
}

/**
 * The statement writing the groups of parents, then the groups of children, as CTEs of one statement,
 * so the children's `parent_id` references are satisfied when the statement ends. A child is written
 * only if its parent was inserted by this statement: a parent that already existed keeps the children
 * it has, and one request never gets a second set of steps.
 */
function insertStatement(parents: string[], children: string[]): string {
  const [only] = parents;
  if (only !== undefined && parents.length === 1 && children.length === 0) return insertFromJson(only, '$1');
  const ctes = parents.map((columns, i) => `p${i} AS (${insertFromJson(columns, `$${i + 1}`)} RETURNING id)`);
  const inserted = parents.map((_, i) => `SELECT id FROM p${i}`).join(' UNION ALL ');
  children.forEach((columns, j) => ctes.push(`c${j} AS (${insertFromJson(columns, `$${parents.length + j + 1}`, ` WHERE r.parent_id IN (${inserted})`)})`));
  return `WITH ${ctes.join(', ')} SELECT 1`;
}

/** What stands in for U+0000 in a stored log: PostgreSQL's text and jsonb cannot hold it. */
const NUL_STAND_IN = '\uFFFD';

/** A JSON escape of NUL that is not itself an escaped backslash followed by `u0000`. */
const ESCAPED_NUL = /(?<!\\)((?:\\\\)*)\\u0000/g;

/**
 * The rows as one JSON text. The API refuses NUL in requests, but an upstream's answer may carry one:
 * it is stored as U+FFFD rather than losing the whole log. Without a replacer function, which
 * JSON.stringify would call for every value of the rows' nested request and answer.
 */
export function rowsJson(rows: LogInsert[]): string {
  const text = JSON.stringify(rows);
  return text.includes('\\u0000') ? text.replace(ESCAPED_NUL, `$1${NUL_STAND_IN}`) : text;
}

interface PendingWrite {
  parent: LogInsert;
  children: LogInsert[];
  done: (err?: unknown) => void;
}

export interface LogBatcherOptions {
  /** Requests written in one transaction, at most. */
  maxBatch?: number;
  /** Batches being written at once, at most; more requests wait and share the next one. */
  maxInFlight?: number;
}

/**
 * Writes request logs by group commit: a write starts at once when fewer than `maxInFlight` batches
 * are being written, and otherwise joins the next batch, which starts as soon as one finishes. A lone
 * request pays one statement and no waiting; under load many requests share a statement, so logging
 * keeps up with the request rate. Callers wait for the commit (the worker releases an answer only once
 * its log exists). A batch that fails is retried one request at a time, so one bad row loses nothing else;
 * a log that already exists is not a failure (the insert skips it).
 */
/** A log whose prompt is longer than this, in characters, is written in a statement of its own. */
const LARGE_PROMPT_CHARS = 64 * 1024;

export class LogBatcher {
  private pending: PendingWrite[] = [];
  private scheduled = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Large logs being written on their own, outside `maxInFlight`. */
  private readonly alone = new Set<Promise<void>>();
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly pool: Pool;

  constructor(
    db: Db,
    private readonly logger: Logger,
    options: LogBatcherOptions = {},
  ) {
    this.pool = sqlPoolOf(db);
    this.maxBatch = options.maxBatch ?? 200;
    this.maxInFlight = options.maxInFlight ?? 2;
  }

  /** Resolves once the rows are committed. */
  write(rows: { parent: LogInsert; children: LogInsert[] }): Promise<void> {
    return new Promise((resolve, reject) => {
      // One literal: a spread followed by another property builds the object's shape one property at a time.
      const write: PendingWrite = { parent: rows.parent, children: rows.children, done: (err?: unknown) => (err === undefined ? resolve() : reject(err)) };
      // A large log (a prompt of hundreds of KB) is written on its own, beside the batches: in a shared
      // statement its JSON parse and TOAST write would hold every small request's commit behind it.
      if ((rows.parent.prompt?.length ?? 0) > LARGE_PROMPT_CHARS) {
        const writing: Promise<void> = this.writeBatch([write]).finally(() => this.alone.delete(writing));
        this.alone.add(writing);
        return;
      }
      this.pending.push(write);
      this.schedule();
    });
  }

  /** Writes what is pending and waits for every write under way. */
  async close(): Promise<void> {
    while (this.pending.length > 0 || this.inFlight.size > 0 || this.alone.size > 0) {
      this.startBatches();
      await Promise.all([...this.inFlight, ...this.alone]);
    }
  }

  /** Writes made in the same turn of the event loop share a batch: the flush waits for that turn to end. */
  private schedule(): void {
    if (this.scheduled || this.inFlight.size >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startBatches();
    });
  }

  private startBatches(): void {
    while (this.pending.length > 0 && this.inFlight.size < this.maxInFlight) {
      const batch = this.pending.splice(0, this.maxBatch);
      const writing: Promise<void> = this.writeBatch(batch).finally(() => {
        this.inFlight.delete(writing);
        if (this.pending.length > 0) this.schedule();
      });
      this.inFlight.add(writing);
    }
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
   * One statement for the whole batch: the rows travel as JSON and `jsonb_populate_recordset` types them
   * by the table's own columns, one INSERT per set of columns (see `insertStatement`). A request written
   * twice in one batch is written once. (Prisma's createMany costs several times the CPU per row; the
   * statement goes to the pool under Prisma, see `sqlPoolOf`.)
   */
  private async insert(batch: PendingWrite[]): Promise<void> {
    const unique = [...new Map(batch.map((write) => [write.parent.id, write])).values()];
    const parents = byColumns(unique.map((write) => write.parent));
    const children = byColumns(unique.flatMap((write) => write.children));
    const sql = insertStatement(
      parents.map((group) => group.columns),
      children.map((group) => group.columns),
    );
    await this.pool.query(
      sql,
      [...parents, ...children].map((group) => rowsJson(group.rows)),
    );
  }
}
