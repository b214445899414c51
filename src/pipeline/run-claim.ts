import type { Logger } from 'pino';
import { finishesWithinLoopTime } from '../domain/finishes-within';
import type { ClaimHolder, ClaimView, CompletionClaimStore } from '../store/completion-claims';

/** What a run may do with its job: run it, or end at once as a duplicate of a run that answers (or answered). */
export type ClaimDecision = 'run' | 'duplicate';

export interface RunClaimsOptions {
  store: Pick<CompletionClaimStore, 'claim' | 'read' | 'takeOver'>;
  /** This process's id, as its heartbeat names it. */
  owner: string;
  /** Whether another process's heartbeat exists now; injected by the wiring (the heartbeat's key layout is not ours). */
  isOwnerAlive(owner: string): Promise<boolean>;
  /**
   * How long a holder whose heartbeat is missing gets before it is declared dead, in ms: at least two
   * heartbeat intervals, so a heartbeat lost with the writes of a Redis failover is written again meanwhile.
   */
  recheckMs: number;
  /** How often a duplicate looks again whether the holder finished or died, in ms. */
  pollMs: number;
  /** Longest wait for a claim's statement, in ms: a database that hangs fails the run rather than hold it. */
  claimWaitMs: number;
  logger: Logger;
}

export interface ClaimedJob {
  requestId: string;
  /** The job's deadline (ms since the epoch): past it nobody waits for the answer. */
  deadline: number;
}

/** A claim PostgreSQL did not commit within `claimWaitMs`: the run calls nothing and its client gets a 503 saying so. */
export class ClaimTimeoutError extends Error {
  constructor(readonly waitMs: number) {
    super(`PostgreSQL did not commit the request's claim within ${waitMs} ms`);
    this.name = 'ClaimTimeoutError';
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const sameHolder = (a: ClaimHolder | null, b: ClaimHolder | null): boolean => a !== null && b !== null && a.owner === b.owner && a.run === b.run;

/**
 * Decides, before a job's first upstream or plugin call, whether this run may make it: a claim per
 * request in PostgreSQL, which survives a Redis failover that loses a job's lock (docs/reliability.md,
 * "Runs at most once"). The first run to claim runs. A later run of the same job (BullMQ handed it out
 * again) waits while the holder's process lives and its run is unfinished, then ends as a duplicate:
 * it calls, publishes and logs nothing, and keeps the job active so that the gateway sees it running
 * rather than lost. A holder whose process is dead (heartbeat missing twice, `recheckMs` apart) and
 * whose run never finished is taken over: a crash retry, which may repeat a call the dead run had made.
 */
export class RunClaims {
  constructor(private readonly options: RunClaimsOptions) {}

  async decide(job: ClaimedJob, run: string): Promise<ClaimDecision> {
    const own: ClaimHolder = { owner: this.options.owner, run };
    const claimed = await this.claim(job.requestId, own);
    if (claimed.taken || sameHolder(claimed.holder, own)) return 'run';
    // Held by another run: looked at afresh, with whether its log exists (which the claim does not read).
    let found: ClaimView = await this.reread(job.requestId, own);
    for (;;) {
      if (found.taken || sameHolder(found.holder, own)) return 'run';
      if (found.finished) return 'duplicate';
      const holder = found.holder;
      // No holder seen: a concurrent claim committed after the statement began; read it at once.
      if (holder !== null) {
        if (await this.isAlive(holder.owner)) {
          // Past the deadline the live holder has answered (or failed) the request: nothing is left to wait for.
          if (Date.now() > job.deadline) return 'duplicate';
          await sleep(this.options.pollMs);
        } else if (await this.takeOverIfDead(job.requestId, holder, own)) {
          // Even past the deadline: the run then fails the request as timed out, with no upstream call, and logs it once.
          return 'run';
        }
      }
      found = await this.reread(job.requestId, own);
    }
  }

  /** The claim as it is now; if it is gone (swept, past every deadline), claiming again settles who runs. */
  private async reread(requestId: string, own: ClaimHolder): Promise<ClaimView> {
    const now = await this.options.store.read(requestId);
    return now ? { taken: false, ...now } : this.claim(requestId, own);
  }

  /** After `recheckMs`, takes the claim if the holder is unchanged, unfinished and still without a heartbeat. */
  private async takeOverIfDead(requestId: string, holder: ClaimHolder, own: ClaimHolder): Promise<boolean> {
    await sleep(this.options.recheckMs);
    const again = await this.options.store.read(requestId);
    if (!again || again.finished || !sameHolder(again.holder, holder) || (await this.isAlive(holder.owner))) return false;
    const taken = await this.options.store.takeOver(requestId, holder, own);
    if (taken)
      this.options.logger.warn(
        { request_id: requestId, dead_owner: holder.owner, dead_run: holder.run },
        'completion claim of a dead worker taken over; its run is repeated',
      );
    return taken;
  }

  /** This process is alive in its own eyes; a heartbeat that cannot be read (Redis away) counts as alive: never take over on a guess. */
  private async isAlive(owner: string): Promise<boolean> {
    if (owner === this.options.owner) return true;
    try {
      return await this.options.isOwnerAlive(owner);
    } catch (err) {
      this.options.logger.warn({ err, owner }, 'claim holder’s heartbeat not read; taken as alive');
      return true;
    }
  }

  /** The claim's statement, within `claimWaitMs` of the process's own time (finishesWithinLoopTime). */
  private async claim(requestId: string, own: ClaimHolder): Promise<ClaimView> {
    const claiming = this.options.store.claim(requestId, own);
    if (await finishesWithinLoopTime(claiming, this.options.claimWaitMs)) return claiming;
    throw new ClaimTimeoutError(this.options.claimWaitMs);
  }
}
