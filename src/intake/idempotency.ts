import { privacyPolicyOf, type PrivacyPolicy } from '../domain/privacy-policy';
import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { stringify } from 'safe-stable-stringify';
import { ApiError } from '../errors/api-error';
import type { AcceptedRequest, CompletionIntake, Submission } from './completion-intake';
import { MAX_KEPT_ANSWER_BYTES, recordingSink, type Outcome } from './idempotency-recorder';
import type { FinishedRecord, IdempotencyRecord, IdempotencyScope, IdempotencyStore, StoredAnswer } from './idempotency-store';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Printable ASCII without spaces, as Stripe and OpenAI's SDKs send (UUIDs, `stainless-node-retry-…`). */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyDeps {
  intake: CompletionIntake;
  store: IdempotencyStore;
  /** How long a running claim holds the key if its process dies, in ms: past the completion timeout. */
  runningTtlMs: number;
  logger: Logger;
}

export interface IdempotentRequest {
  /** The `Idempotency-Key` header as received. */
  key: string;
  /** The request body as the client sent it (parsed JSON), for the fingerprint. */
  body: unknown;
}

/** The key as this request holds it. */
interface Claim {
  scope: IdempotencyScope;
  token: string;
  fingerprint: string;
}

/**
 * The privacy level from which a request's answer is not kept for a repeat: 2 for a completion (its text),
 * 3 for an async request, whose answer (the queued job: ids, times, the model and webhook named) holds no
 * text of the conversation, and which is refused at level 3 anyway.
 */
function keepsAnswerAt(privacy: PrivacyPolicy, submission: Pick<Submission, 'respondAsync'>): boolean {
  return submission.respondAsync ? privacy.keepsAnswer : !privacy.masksContent;
}

function validKey(key: string): string {
  if (VALID_KEY.test(key)) return key;
  throw new ApiError('invalid_value', `Invalid '${IDEMPOTENCY_HEADER}' header: 1 to 255 printable ASCII characters, without spaces.`, IDEMPOTENCY_HEADER);
}

/** The request as far as its outcome goes: the body (key order aside), the flags header, and whether it asked to respond async. */
function fingerprintOf(body: unknown, { featureFlagsHeader, respondAsync }: Pick<Submission, 'featureFlagsHeader' | 'respondAsync'>): string {
  // Only an async request names it, so the fingerprints of synchronous ones stay what they were.
  const parts = { body, feature_flags: featureFlagsHeader ?? null, ...(respondAsync ? { respond_async: true } : {}) };
  return createHash('sha256')
    .update(stringify(parts) ?? '', 'utf8')
    .digest('hex');
}

/**
 * `Idempotency-Key` on `POST /v1/chat/completions`, at the HTTP edge: the first request with a key claims
 * it and runs; a repeat with the same body within 24 h replays the stored answer, one with another body
 * is a 422, and one while the first still runs is a 409. Keys are scoped by organization and Space (the
 * key's own, so a claim needs no lookup; the intake checks the Space and tells the privacy level it found).
 */
export class IdempotentCompletions {
  constructor(private readonly deps: IdempotencyDeps) {}

  async submit(submission: Submission, request: IdempotentRequest): Promise<void> {
    const key = validKey(request.key);
    const { auth } = submission;
    // A key not bound to a Space is refused by the intake; there is no scope to claim in.
    if (!auth.appId) return this.deps.intake.submit(submission);
    const scope: IdempotencyScope = { orgId: auth.orgId, appId: auth.appId, key };
    const fingerprint = fingerprintOf(request.body, submission);
    const token = randomUUID();
    const existing = await this.deps.store.claim(scope, { fingerprint, token, ttlMs: this.deps.runningTtlMs });
    if (existing) return this.repeat(existing, { submission, scope, fingerprint });
    await this.run(submission, { scope, token, fingerprint });
  }

  private async run(submission: Submission, claim: Claim): Promise<void> {
    let accepted: AcceptedRequest | undefined;
    const recording = recordingSink(submission.sink, {
      stream: submission.request.stream === true,
      // Replies come only after the intake accepted the request, so its privacy level is known by then.
      keepText: () => accepted !== undefined && keepsAnswerAt(accepted.privacy, submission),
      settle: (outcome) => this.settle(submission, claim, { outcome, accepted }),
    });
    try {
      await this.deps.intake.submit({
        ...submission,
        sink: recording.sink,
        onAccepted: (found) => {
          accepted = found;
          submission.onAccepted?.(found);
        },
      });
    } finally {
      // Refused before it ran (Space, rate limit), or the client left: the key stays free for a retry.
      if (!(await recording.settled())) await this.release(claim);
    }
  }

  /**
   * Keeps a successful run's answer; any failure frees the key, since it left nothing to protect from a
   * second run and a retry may well succeed.
   */
  private async settle(
    submission: Submission,
    claim: Claim,
    { outcome, accepted }: { outcome: Outcome; accepted: AcceptedRequest | undefined },
  ): Promise<void> {
    if ('failed' in outcome || !accepted) return this.release(claim);
    const base = { state: 'done' as const, fingerprint: claim.fingerprint, logId: accepted.requestId };
    const record: FinishedRecord = 'answer' in outcome ? { ...base, answer: outcome.answer } : { ...base, withheld: outcome.withheld };
    try {
      await this.deps.store.finish(claim.scope, claim.token, record);
    } catch (err) {
      this.deps.logger.warn({ err, request_id: accepted.requestId }, 'idempotent answer not stored');
      return this.release(claim);
    }
    if ('answer' in record) await this.withholdIfRaised(submission, claim);
  }

  /**
   * The Space may have raised its privacy level while the request ran. Kept first, checked second: a rise
   * committed before this check is seen here, and one committed after it drops the answer itself
   * (AppService.update), so no answer outlives a rise. A failed check counts as a rise.
   */
  private async withholdIfRaised(submission: Submission, { scope }: Claim): Promise<void> {
    const now = await this.deps.intake.privacyNow(submission.auth, submission.request).catch(() => privacyPolicyOf(3));
    if (keepsAnswerAt(now, submission)) return;
    await this.deps.store.withhold(scope).catch((err: unknown) => this.deps.logger.error({ err }, 'kept answer not withheld after a rise of privacy'));
  }

  private async release({ scope, token }: Claim): Promise<void> {
    await this.deps.store.release(scope, token).catch((err: unknown) => this.deps.logger.warn({ err }, 'idempotency key not released'));
  }

  /**
   * Answers a repeat without running it. A kept answer is replayed only after the intake's own Space
   * checks, at the privacy level in force now (a Space changed by a writer other than PUT /v1/apps/update,
   * e.g. a sandbox sync, has its answer dropped here).
   */
  private async repeat(
    record: IdempotencyRecord,
    { submission, scope, fingerprint }: { submission: Submission; scope: IdempotencyScope; fingerprint: string },
  ): Promise<void> {
    if (record.fingerprint !== fingerprint) {
      throw new ApiError(
        'idempotency_key_reused',
        `This ${IDEMPOTENCY_HEADER} was already used for a different request (body or Service-Feature-Flags); use a new key for a new request.`,
        IDEMPOTENCY_HEADER,
      );
    }
    if (record.state === 'running') {
      throw new ApiError(
        'idempotency_request_in_progress',
        `A request with this ${IDEMPOTENCY_HEADER} is still running; repeat it once it has finished to get its answer.`,
        IDEMPOTENCY_HEADER,
      ).withHeaders({ 'retry-after': '1' });
    }
    const logHeader: Record<string, string> = record.logId ? { 'x-switchyard-log-id': record.logId } : {};
    if ('answer' in record) {
      if (keepsAnswerAt(await this.deps.intake.privacyNow(submission.auth, submission.request), submission)) {
        submission.setHeaders({ ...logHeader, 'idempotent-replayed': 'true' });
        return replay(record.answer, submission);
      }
      await this.deps.store.withhold(scope);
    }
    const why =
      'withheld' in record && record.withheld === 'size'
        ? `its answer was larger than ${MAX_KEPT_ANSWER_BYTES / (1024 * 1024)} MiB and was not kept`
        : 'its answer is not kept at privacy level 2 or 3, where no request or response text rests in Redis';
    throw new ApiError(
      'idempotency_answer_not_kept',
      `The request with this ${IDEMPOTENCY_HEADER} already completed, but ${why}; send a new key to run it again.`,
      IDEMPOTENCY_HEADER,
    ).withHeaders(logHeader);
  }
}

/** Writes a stored answer through the request's own sink, exactly as the first run was written. */
function replay(answer: StoredAnswer, { sink }: Submission): void {
  if (answer.kind === 'json') return sink.done(answer.response);
  answer.frames.forEach((frame) => sink.chunk(frame));
  sink.done(undefined);
}
