import type { Logger } from 'pino';
import type { Pool } from 'pg';
import { sqlPoolOf, type Db } from './db';

/** Who holds a claim: a worker process and its run of the job. */
export interface ClaimHolder {
  owner: string;
  run: string;
}

/** A claim as a run finds it. */
export interface ClaimView {
  /** This run's claim was inserted by the statement that answered. */
  taken: boolean;
  /** The holder (this run's own when `taken`); null when a concurrent claim committed after the statement began. */
  holder: ClaimHolder | null;
  /** The holder's run has ended: its claim is marked finished, or (as `read` answers) the request's log exists. */
  finished: boolean;
}

interface PendingClaim {
  requestId: string;
  holder: ClaimHolder;
  done(view: ClaimView | Error): void;
}

/** Whether the request's run ended: its claim says so, or its log was written (a log is written last). */
const FINISHED = `(c.finished_at IS NOT NULL OR EXISTS (SELECT 1 FROM logs l WHERE l.id = c.request_id))`;

/**
 * Claims and finish marks are committed without waiting for the WAL flush (`synchronous_commit` off for
 * their own transaction, set by `set_config(…, true)` inside the statement, so that it stays one prepared
 * statement in one round trip): a claim is visible to every other session at once, which is all a second
 * run needs, and the run's first upstream call does not wait for a disk flush (a lone claim took 2.5–3.6 ms
 * with it, 0.6–0.7 ms without, on the development machine). What that gives up: a PostgreSQL crash may lose
 * the last ~200 ms of claims, as a failover to an asynchronous replica may lose any recent write; a job
 * handed out again in that same window would run twice.
 */
const WITHOUT_FLUSH = `set_config('synchronous_commit', 'off', true) IS NOT NULL`;

/**
 * A batch of claims: the rows inserted come back (with their run, so of two claims of one request in
 * one batch, one wins). Prepared once per connection; it never reads `logs` (a lock on that table, a
 * migration or a hung log insert, must not hold back every run's first call).
 */
const CLAIM = {
  name: 'completion-claims-insert',
  text: `INSERT INTO completion_claims (request_id, owner, run)
SELECT r.request_id, r.owner, r.run FROM unnest($1::uuid[], $2::text[], $3::text[]) AS r(request_id, owner, run)
WHERE ${WITHOUT_FLUSH}
ON CONFLICT (request_id) DO NOTHING
RETURNING request_id::text, run`,
};

/** The holders of claims that were already taken (the rare second run). */
const HOLDERS = {
  name: 'completion-claims-holders',
  text: `SELECT request_id::text, owner, run, finished_at IS NOT NULL AS finished FROM completion_claims WHERE request_id = ANY($1::uuid[])`,
};

/** A batch of finish marks. */
const FINISH = {
  name: 'completion-claims-finish',
  text: `UPDATE completion_claims SET finished_at = now() WHERE request_id = ANY($1::uuid[]) AND finished_at IS NULL AND ${WITHOUT_FLUSH}`,
};

const READ = `SELECT c.owner, c.run, ${FINISHED} AS finished FROM completion_claims c WHERE c.request_id = $1::uuid`;

/** Moves a claim from a dead holder to a new one; matches nothing if the holder changed or the run ended meanwhile. */
const TAKE_OVER = `
UPDATE completion_claims c SET owner = $4, run = $5
WHERE c.request_id = $1::uuid AND c.owner = $2 AND c.run = $3 AND NOT ${FINISHED}`;

/** Deletes claims older than the cutoff, `$2` at most, skipping rows another sweeper holds. */
const SWEEP = `
DELETE FROM completion_claims WHERE request_id IN (
  SELECT request_id FROM completion_claims WHERE claimed_at < now() - make_interval(secs => $1::float8)
  LIMIT $2 FOR UPDATE SKIP LOCKED
)`;

export interface ClaimStoreOptions {
  /** Claims (and finish marks) in one statement, at most. */
  maxBatch?: number;
  /** Statements under way at once, at most; more claims wait and share the next one. */
  maxInFlight?: number;
}

/**
 * The completion claims table (`completion_claims`), written by group commit as the log batcher writes
 * logs: a claim or finish made while fewer than `maxInFlight` statements are under way goes at once,
 * otherwise it joins the next statement. Under load a claim costs a share of one round trip and one
 * row insert; a lone claim costs one round trip. Holds ids and times only.
 */
export class CompletionClaimStore {
  private claims: PendingClaim[] = [];
  private finishes: string[] = [];
  private scheduled = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly pool: Pool;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;

  constructor(
    db: Db,
    private readonly logger: Logger,
    options: ClaimStoreOptions = {},
  ) {
    this.pool = sqlPoolOf(db);
    this.maxBatch = options.maxBatch ?? 500;
    this.maxInFlight = options.maxInFlight ?? 2;
  }

  /** Inserts the claim unless the request has one; answers whose it is. */
  claim(requestId: string, holder: ClaimHolder): Promise<ClaimView> {
    return new Promise((resolve, reject) => {
      this.claims.push({ requestId, holder, done: (view) => (view instanceof Error ? reject(view) : resolve(view)) });
      this.schedule();
    });
  }

  /** Marks the request's run ended, in the next statement; nobody waits for it (a lost mark is covered by the log's existence). */
  finish(requestId: string): void {
    this.finishes.push(requestId);
    this.schedule();
  }

  /** The request's claim as it is now, or null if it has none. */
  async read(requestId: string): Promise<Omit<ClaimView, 'taken'> | null> {
    const { rows } = await this.pool.query<{ owner: string; run: string; finished: boolean }>(READ, [requestId]);
    const row = rows[0];
    return row ? { holder: { owner: row.owner, run: row.run }, finished: row.finished } : null;
  }

  /** Gives a dead holder's unfinished claim to `to`; false if the claim changed hands or ended since it was read. */
  async takeOver(requestId: string, from: ClaimHolder, to: ClaimHolder): Promise<boolean> {
    const result = await this.pool.query(TAKE_OVER, [requestId, from.owner, from.run, to.owner, to.run]);
    return result.rowCount === 1;
  }

  /** Deletes up to `limit` claims older than `olderThanMs`; answers how many. */
  async sweep(olderThanMs: number, limit: number): Promise<number> {
    const result = await this.pool.query(SWEEP, [olderThanMs / 1000, limit]);
    return result.rowCount ?? 0;
  }

  /** Writes what is pending and waits for every statement under way. */
  async close(): Promise<void> {
    while (this.claims.length > 0 || this.finishes.length > 0 || this.inFlight.size > 0) {
      this.startBatches();
      await Promise.all(this.inFlight);
    }
  }

  /** Claims made in the same turn of the event loop share a statement. */
  private schedule(): void {
    if (this.scheduled || this.inFlight.size >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startBatches();
    });
  }

  private startBatches(): void {
    while ((this.claims.length > 0 || this.finishes.length > 0) && this.inFlight.size < this.maxInFlight) {
      const claims = this.claims.splice(0, this.maxBatch);
      const finishes = this.finishes.splice(0, this.maxBatch);
      const writing: Promise<void> = this.write(claims, finishes).finally(() => {
        this.inFlight.delete(writing);
        if (this.claims.length > 0 || this.finishes.length > 0) this.schedule();
      });
      this.inFlight.add(writing);
    }
  }

  /** A failed statement fails its claims (each run decides what that means) and loses its finish marks, which the logs cover. */
  private async write(claims: PendingClaim[], finishes: string[]): Promise<void> {
    // Side by side; a claim meeting a finish mark of the same batch counts it by hand (it may not have committed yet).
    await Promise.all([this.writeClaims(claims, new Set(finishes)), this.writeFinishes(finishes)]);
  }

  private async writeClaims(claims: PendingClaim[], finishing: ReadonlySet<string>): Promise<void> {
    if (claims.length === 0) return;
    try {
      const { rows } = await this.pool.query<{ request_id: string; run: string }>({
        ...CLAIM,
        values: [claims.map((claim) => claim.requestId), claims.map((claim) => claim.holder.owner), claims.map((claim) => claim.holder.run)],
      });
      const taken = new Set(rows.map((row) => `${row.request_id} ${row.run}`));
      const others = claims.filter((claim) => !taken.has(`${claim.requestId} ${claim.holder.run}`));
      const holders = others.length === 0 ? new Map<string, HolderRow>() : await this.holdersOf(others.map((claim) => claim.requestId));
      for (const claim of claims) {
        if (taken.has(`${claim.requestId} ${claim.holder.run}`)) claim.done({ taken: true, holder: claim.holder, finished: false });
        else claim.done(viewOf(holders.get(claim.requestId), finishing.has(claim.requestId)));
      }
    } catch (err) {
      this.logger.error({ err, claims: claims.length }, 'completion claims not written');
      const failure = err instanceof Error ? err : new Error(String(err));
      for (const claim of claims) claim.done(failure);
    }
  }

  private async holdersOf(requestIds: string[]): Promise<Map<string, HolderRow>> {
    const { rows } = await this.pool.query<HolderRow>({ ...HOLDERS, values: [requestIds] });
    return new Map(rows.map((row) => [row.request_id, row]));
  }

  private async writeFinishes(finishes: string[]): Promise<void> {
    if (finishes.length === 0) return;
    try {
      await this.pool.query({ ...FINISH, values: [finishes] });
    } catch (err) {
      this.logger.error({ err, finishes: finishes.length }, 'completion claims not marked finished');
    }
  }
}

interface HolderRow {
  request_id: string;
  owner: string;
  run: string;
  finished: boolean;
}

/** A claim another run holds, as read; none read (a concurrent claim committed after the statement began): holder null. */
function viewOf(row: HolderRow | undefined, finishing: boolean): ClaimView {
  return row
    ? { taken: false, holder: { owner: row.owner, run: row.run }, finished: row.finished || finishing }
    : { taken: false, holder: null, finished: false };
}
