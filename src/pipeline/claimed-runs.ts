import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ApiError } from '../errors/api-error';
import type { CompletionJob } from '../queue/payloads';
import type { Reply } from '../queue/replies';
import type { Cancellations } from './cancellations';
import type { CompletionRunner, DetachedRun, RunSummary } from './completion-runner';
import { ClaimTimeoutError, type RunClaims } from './run-claim';

/**
 * What a run that found its job already claimed by a live or finished run returns to BullMQ: it ran
 * nothing (409: the request is another run's). Never seen by a client, whose answer the holder publishes.
 */
const DUPLICATE_RUN: RunSummary = { statusCode: 409, model: null };
/** A run whose claim PostgreSQL did not take (it did not answer in time): it ran nothing and answered 503. */
const UNCLAIMED_RUN: RunSummary = { statusCode: 503, model: null };
/** Seconds the client is asked to wait when its request could not be claimed. */
const UNCLAIMED_RETRY_AFTER_SECONDS = 2;

/** Why a run's claim was not taken, as its client is told: the wait that ran out, or that the statement failed. */
class Unclaimed {
  readonly reason: string;
  constructor(err: unknown) {
    this.reason = err instanceof ClaimTimeoutError ? err.message : 'PostgreSQL refused or lost the claim';
  }
}

/** The claims of this process's runs (docs/reliability.md, "Runs at most once"). */
export interface CompletionClaims {
  decide: RunClaims['decide'];
  /**
   * Marks a run ended, unless its log marks it (a run that logged is finished in its claim's eyes): only
   * a run that writes no log (privacy level 3), or one that threw, costs the mark's statement.
   */
  finishUnlessLogged(job: CompletionJob, summary: RunSummary | undefined): void;
  close(): Promise<void>;
}

export interface ClaimedRunsDeps {
  runner: CompletionRunner;
  claims: CompletionClaims;
  cancellations: Pick<Cancellations, 'track'>;
  /** Publishes a reply to the API process waiting on `channel`. */
  publish(channel: string, reply: Reply): Promise<void>;
  /** Resolves once the subscriptions a run relies on (cancellations, breakers) are up. */
  listen(): Promise<void>;
  logger: Logger;
}

/**
 * Runs each completion job at most once, whoever hands it out: a run claims its request before any
 * upstream or plugin call, and a second run of the same job (handed out twice in a Redis failover) does
 * nothing. A job is cancellable by its request id while it runs.
 */
export class ClaimedRuns {
  /** Once the subscriptions are up, a job awaits nothing for them. */
  private listening = false;

  constructor(private readonly deps: ClaimedRunsDeps) {}

  private async ready(): Promise<void> {
    if (this.listening) return;
    await this.deps.listen();
    this.listening = true;
  }

  /** A job someone waits for live (or an async one): answers its client and writes its log, once. */
  async run(job: CompletionJob): Promise<RunSummary> {
    await this.ready();
    const { claims, logger } = this.deps;
    const run = randomUUID();
    // Before any upstream or plugin call: a second run of the job ends here (one batched statement per turn).
    const decision = await claims.decide(job, run).catch((err: unknown) => {
      logger.error({ err, request_id: job.requestId }, 'completion not claimed: it runs nothing');
      return new Unclaimed(err);
    });
    if (decision instanceof Unclaimed) {
      // PostgreSQL did not take the claim: nothing was called, so the client may send the request again.
      const failure = new ApiError('service_unavailable', `The service could not record the request (${decision.reason}); retry shortly.`)
        .withHeaders({ 'Retry-After': String(UNCLAIMED_RETRY_AFTER_SECONDS) })
        .toFailure();
      if (job.replyTo) await this.deps.publish(job.replyTo, { requestId: job.requestId, run, type: 'error', failure }).catch(() => undefined);
      return UNCLAIMED_RUN;
    }
    if (decision === 'duplicate') {
      logger.warn({ request_id: job.requestId }, 'completion job handed out again while claimed: this run does nothing');
      return DUPLICATE_RUN;
    }
    const { signal, release } = this.deps.cancellations.track(job.requestId);
    let summary: RunSummary | undefined;
    try {
      summary = await this.deps.runner.run(job, signal, run);
      return summary;
    } finally {
      release();
      claims.finishUnlessLogged(job, summary);
    }
  }

  /**
   * Runs a completion nobody waits for live (a batch line) and hands back its outcome; null when another
   * run holds the request's claim (the job was handed out twice) and answers it. A claim PostgreSQL does
   * not take fails the line's job, which is tried again.
   */
  async runDetached(job: CompletionJob, signal: AbortSignal): Promise<DetachedRun | null> {
    await this.ready();
    const run = randomUUID();
    if ((await this.deps.claims.decide(job, run)) === 'duplicate') {
      this.deps.logger.warn({ request_id: job.requestId }, 'batch line handed out again while claimed: this run does nothing');
      return null;
    }
    let detached: DetachedRun | undefined;
    try {
      detached = await this.deps.runner.runDetached(job, signal, run);
      return detached;
    } finally {
      this.deps.claims.finishUnlessLogged(job, detached?.summary);
    }
  }
}
