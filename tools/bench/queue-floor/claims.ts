import type { FloorLogTable } from './log-writer';

/** One run's claim of its request: the worker process and its run of the job, as Switchyard's claims name them. */
export interface FloorClaim {
  request_id: string;
  owner: string;
  run: string;
}

/**
 * The configured floor's run-once claim (issue 22; Switchyard's src/store/completion-claims.ts, read, not
 * imported): before its first upstream call, each run inserts its request's claim, and only the run whose
 * row went in calls upstream. The table is the floor's own copy of `completion_claims` (its columns,
 * defaults, primary key and BRIN index, and its fillfactor), as the floor's logs are a copy of `logs`. The
 * statement is Switchyard's claim statement: prepared, one per batch (group commit, log-writer.ts), with
 * `synchronous_commit` off for its own transaction by `set_config` inside it, so that a claim does not wait
 * for a WAL flush. No finish mark: the floor writes a log for every run that answers, and the log is what
 * marks a run finished. A claim whose row did not go in (the job handed out twice) answers `false`.
 */
export const CONFIGURED_CLAIM_TABLE: FloorLogTable<FloorClaim, boolean> = {
  create: `CREATE TABLE IF NOT EXISTS configured_floor_claims (LIKE completion_claims INCLUDING DEFAULTS INCLUDING INDEXES) WITH (fillfactor = 90)`,
  statement: (claims) => ({
    name: 'configured-floor-claims-insert',
    sql: `INSERT INTO configured_floor_claims (request_id, owner, run)
SELECT r.request_id, r.owner, r.run FROM unnest($1::uuid[], $2::text[], $3::text[]) AS r(request_id, owner, run)
WHERE set_config('synchronous_commit', 'off', true) IS NOT NULL
ON CONFLICT (request_id) DO NOTHING
RETURNING request_id::text, run`,
    params: [claims.map((c) => c.request_id), claims.map((c) => c.owner), claims.map((c) => c.run)],
  }),
  // Runs are unique (a new UUID per run), so the run alone says whose row went in.
  answers: (claims, rows) => {
    const taken = new Set(rows.map((row) => row.run));
    return claims.map((c) => taken.has(c.run));
  },
};
