import type { FloorLogTable } from './log-writer';

/** One request's log row in the floor's own narrow table. */
export interface FloorLogRow {
  id: string;
  model: string;
  request: unknown;
  response: string;
  prompt_tokens: number;
  completion_tokens: number;
}

/** The least a logged request needs: one narrow row, one INSERT from a JSON recordset per batch. */
export const LEAST_LOG_TABLE: FloorLogTable<FloorLogRow> = {
  create: `CREATE TABLE IF NOT EXISTS queue_floor_logs (
    id uuid PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), model text NOT NULL, request jsonb NOT NULL,
    response text NOT NULL, prompt_tokens integer NOT NULL, completion_tokens integer NOT NULL)`,
  statement: (rows) => ({
    sql: 'INSERT INTO queue_floor_logs (id, model, request, response, prompt_tokens, completion_tokens) SELECT id, model, request, response, prompt_tokens, completion_tokens FROM json_populate_recordset(NULL::queue_floor_logs, $1::json)',
    params: [JSON.stringify(rows)],
  }),
};

/** A request's log as Switchyard's `logs` table holds it: the parent row, and one child row for its model call. */
export interface RequiredLogRows {
  parent: Record<string, unknown>;
  child: Record<string, unknown>;
}

const COLUMNS =
  'id, org_id, app_id, idp_id, model_id, namespace, payload, response, timestamp, prompt_tokens, completion_tokens, total_tokens, prompt_tokens_cost, completion_tokens_cost, total_tokens_cost, privacy_level, request_type, status_code, latency';
const SAVINGS_COLUMNS = ', prompt_tokens_cost_savings, completion_tokens_cost_savings, total_tokens_cost_savings';

/**
 * The rows the configuration asks of every request (a parent and a child row, committed before
 * the answer), in a copy of Switchyard's `logs` table with its columns, defaults and indexes (the log
 * views read by them) and without its foreign keys, which an implementation could check in code: the
 * least storage the log API's reads allow. Parents and children of a batch go in one statement. With
 * `savings`, the rows also carry what the request saved against the benchmark model.
 */
function logsTableCopy(table: string, { savings }: { savings: boolean }): FloorLogTable<RequiredLogRows> {
  const columns = savings ? COLUMNS + SAVINGS_COLUMNS : COLUMNS;
  const parentColumns = `${columns}, prompt, response_text`;
  const childColumns = `${columns}, parent_id`;
  return {
    create: `CREATE TABLE IF NOT EXISTS ${table} (LIKE logs INCLUDING DEFAULTS INCLUDING INDEXES)`,
    statement: (rows) => ({
      sql: `WITH parents AS (INSERT INTO ${table} (${parentColumns}) SELECT ${parentColumns} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb))
      INSERT INTO ${table} (${childColumns}) SELECT ${childColumns} FROM jsonb_populate_recordset(NULL::${table}, $2::jsonb)`,
      params: [JSON.stringify(rows.map((r) => r.parent)), JSON.stringify(rows.map((r) => r.child))],
    }),
  };
}

/** The required floor's log rows. */
export const REQUIRED_LOG_TABLE = logsTableCopy('required_floor_logs', { savings: false });

/** The configured floor's log rows: the required ones with their costs and savings filled in. */
export const CONFIGURED_LOG_TABLE = logsTableCopy('configured_floor_logs', { savings: true });
