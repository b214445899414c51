import { Pool } from 'pg';

/**
 * How a floor's rows are stored: the table, made at start, and the one statement a batch of rows takes.
 * With `name`, the statement is prepared once per connection (its text must then be the same for every
 * batch). With `answers`, each row's write resolves to what the statement's result rows say of it.
 */
export interface FloorLogTable<Row, Answer = void> {
  create: string;
  statement(rows: Row[]): { name?: string; sql: string; params: unknown[] };
  answers?(rows: Row[], result: Record<string, unknown>[]): Answer[];
}

/**
 * Group commit, as Switchyard's LogBatcher does it (the cheapest way we know to write rows per request
 * under load): what is written while a statement is under way shares the next one, at most two
 * statements at once. `write` resolves once its rows are committed (with the table's answer for it, if any).
 */
export class FloorLogWriter<Row, Answer = void> {
  private readonly pool: Pool;
  private pending: { row: Row; done: (err: unknown, answer?: Answer) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    databaseUrl: string,
    private readonly table: FloorLogTable<Row, Answer>,
  ) {
    this.pool = new Pool({ connectionString: databaseUrl, max: 2 });
  }

  async start(): Promise<void> {
    await this.pool.query(this.table.create);
  }

  write(row: Row): Promise<Answer> {
    return new Promise((resolve, reject) => {
      this.pending.push({ row, done: (err, answer) => (err === undefined ? resolve(answer as Answer) : reject(err)) });
      this.schedule();
    });
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= 2) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    // The whole queue when it fits one statement: `splice` would copy what stays behind.
    const batch = this.pending.length <= 200 ? this.pending : this.pending.splice(0, 200);
    if (batch === this.pending) this.pending = [];
    this.inFlight += 1;
    const rows = batch.map((w) => w.row);
    const { name, sql, params } = this.table.statement(rows);
    this.pool
      .query<Record<string, unknown>>(name ? { name, text: sql, values: params } : { text: sql, values: params })
      .then(
        (result) => {
          const answers = this.table.answers?.(rows, result.rows);
          batch.forEach((w, i) => w.done(undefined, answers?.[i]));
        },
        (err: unknown) => batch.forEach((w) => w.done(err ?? new Error('log statement failed'))),
      )
      .finally(() => {
        this.inFlight -= 1;
        if (this.pending.length > 0) this.schedule();
      });
  }
}
