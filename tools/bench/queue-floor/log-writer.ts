import { Pool } from 'pg';

/** One request's log row in the floor's own table. */
export interface FloorLogRow {
  id: string;
  model: string;
  request: unknown;
  response: string;
  prompt_tokens: number;
  completion_tokens: number;
}

const TABLE = `CREATE TABLE IF NOT EXISTS queue_floor_logs (
  id uuid PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), model text NOT NULL, request jsonb NOT NULL,
  response text NOT NULL, prompt_tokens integer NOT NULL, completion_tokens integer NOT NULL)`;

/**
 * Group commit, as Switchyard's LogBatcher does it (the cheapest way we know to write a row per request
 * under load): rows written while a statement is under way share the next one, one INSERT from a JSON
 * recordset, at most two statements at once. `write` resolves once the row is committed.
 */
export class FloorLogWriter {
  private readonly pool: Pool;
  private pending: { row: FloorLogRow; done: (err?: unknown) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(databaseUrl: string) {
    this.pool = new Pool({ connectionString: databaseUrl, max: 2 });
  }

  async start(): Promise<void> {
    await this.pool.query(TABLE);
  }

  write(row: FloorLogRow): Promise<void> {
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
    const batch = this.pending.splice(0, 200);
    this.inFlight += 1;
    this.pool
      .query('INSERT INTO queue_floor_logs (id, model, request, response, prompt_tokens, completion_tokens) SELECT id, model, request, response, prompt_tokens, completion_tokens FROM json_populate_recordset(NULL::queue_floor_logs, $1::json)', [JSON.stringify(batch.map((w) => w.row))])
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
