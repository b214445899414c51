import { Pool } from 'pg';

/** How a floor's log rows are stored: the table, made at start, and the one statement a batch of rows takes. */
export interface FloorLogTable<Row> {
  create: string;
  statement(rows: Row[]): { sql: string; params: unknown[] };
}

/**
 * Group commit, as Switchyard's LogBatcher does it (the cheapest way we know to write rows per request
 * under load): what is written while a statement is under way shares the next one, at most two
 * statements at once. `write` resolves once its rows are committed.
 */
export class FloorLogWriter<Row> {
  private readonly pool: Pool;
  private pending: { row: Row; done: (err?: unknown) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    databaseUrl: string,
    private readonly table: FloorLogTable<Row>,
  ) {
    this.pool = new Pool({ connectionString: databaseUrl, max: 2 });
  }

  async start(): Promise<void> {
    await this.pool.query(this.table.create);
  }

  write(row: Row): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ row, done: (err) => (err === undefined ? resolve() : reject(err)) });
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
    const { sql, params } = this.table.statement(batch.map((w) => w.row));
    this.pool
      .query(sql, params)
      .then(
        () => batch.forEach((w) => w.done()),
        (err: unknown) => batch.forEach((w) => w.done(err)),
      )
      .finally(() => {
        this.inFlight -= 1;
        if (this.pending.length > 0) this.schedule();
      });
  }
}
