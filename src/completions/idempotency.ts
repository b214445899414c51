import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { stringify } from 'safe-stable-stringify';
import { ApiError } from '../errors/api-error';
import type { CompletionIntake, Submission } from './completion-intake';
import { MAX_KEPT_ANSWER_BYTES, recordingSink, type Outcome } from './idempotency-recorder';
import type { FinishedRecord, IdempotencyRecord, IdempotencyScope, IdempotencyStore, StoredAnswer } from './idempotency-store';
import { effectivePrivacyLevel } from './privacy-level';
import type { SpaceLookup } from './space-lookup';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Printable ASCII without spaces, as Stripe and OpenAI's SDKs send (UUIDs, `stainless-node-retry-…`). */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyDeps {
  intake: CompletionIntake;
  store: IdempotencyStore;
  spaces: SpaceLookup;
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
  /** The request's privacy level when it was accepted. */
  privacyLevel: number;
}

function validKey(key: string): string {
  if (VALID_KEY.test(key)) return key;
  throw new ApiError('invalid_value', `Invalid '${IDEMPOTENCY_HEADER}' header: 1 to 255 printable ASCII characters, without spaces.`, IDEMPOTENCY_HEADER);
}

/** The request as far as its outcome goes: the body (key order aside) and the flags header. */
function fingerprintOf(body: unknown, featureFlagsHeader: string | undefined): string {
  return createHash('sha256').update(stringify({ body, feature_flags: featureFlagsHeader ?? null }) ?? '', 'utf8').digest('hex');
}

/**
 * `Idempotency-Key` on `POST /v1/chat/completions`, at the HTTP edge: the first request with a key claims
 * it and runs; a repeat with the same body within 24 h replays the stored answer, one with another body
 * is a 422, and one while the first still runs is a 409. Keys are scoped by organization and Space.
 */
export class IdempotentCompletions {
  constructor(private readonly deps: IdempotencyDeps) {}

  async submit(submission: Submission, request: IdempotentRequest): Promise<void> {
    const key = validKey(request.key);
    const { auth } = submission;
    // Without a Space of its own organization the intake refuses the request; nothing to claim.
    const gate = auth.appId ? (await this.deps.spaces.find(auth.appId)).gate : null;
    if (!gate || gate.orgId !== auth.orgId) return this.deps.intake.submit(submission);
    const scope: IdempotencyScope = { orgId: auth.orgId, appId: gate.id, key };
    const privacyLevel = effectivePrivacyLevel(gate.privacyLevel, submission.request);
    const fingerprint = fingerprintOf(request.body, submission.featureFlagsHeader);
    const token = randomUUID();
    const existing = await this.deps.store.claim(scope, { fingerprint, token, ttlMs: this.deps.runningTtlMs });
    if (existing) return this.repeat(existing, { submission, scope, fingerprint, privacyLevel });
    await this.run(submission, { scope, token, fingerprint, privacyLevel });
  }

  private async run(submission: Submission, claim: Claim): Promise<void> {
    let logId: string | null = null;
    const recording = recordingSink(submission.sink, {
      stream: submission.request.stream === true,
      keepText: claim.privacyLevel < 2,
      settle: (outcome) => this.settle(submission, claim, { outcome, logId }),
    });
    try {
      await this.deps.intake.submit({
        ...submission,
        setHeaders: (headers) => {
          logId = headers['x-switchyard-log-id'] ?? logId;
          submission.setHeaders(headers);
        },
        sink: recording.sink,
      });
    } finally {
      // Refused before it ran (Space, rate limit), or the client left: the key stays free for a retry.
      if (!(await recording.settled())) await this.release(claim);
    }
  }

  /**
   * Keeps a successful run's answer (at the privacy level in force now); any failure frees the key, since
   * it left nothing to protect from a second run and a retry may well succeed.
   */
  private async settle(submission: Submission, claim: Claim, { outcome, logId }: { outcome: Outcome; logId: string | null }): Promise<void> {
    if ('failed' in outcome) return this.release(claim);
    try {
      const answer = 'answer' in outcome && (await this.privacyLevelNow(submission, claim)) < 2 ? outcome.answer : undefined;
      const base = { state: 'done' as const, fingerprint: claim.fingerprint, logId };
      const record: FinishedRecord = answer ? { ...base, answer } : { ...base, withheld: 'withheld' in outcome ? outcome.withheld : 'privacy' };
      await this.deps.store.finish(claim.scope, claim.token, record);
    } catch (err) {
      this.deps.logger.warn({ err, request_id: logId }, 'idempotent answer not stored');
      await this.release(claim);
    }
  }

  private async release({ scope, token }: Claim): Promise<void> {
    await this.deps.store.release(scope, token).catch((err: unknown) => this.deps.logger.warn({ err }, 'idempotency key not released'));
  }

  /** The Space may have raised its privacy level while the request ran: the stricter level wins. */
  private async privacyLevelNow({ request }: Submission, claim: Claim): Promise<number> {
    const { gate } = await this.deps.spaces.find(claim.scope.appId);
    return Math.max(claim.privacyLevel, effectivePrivacyLevel(gate?.privacyLevel ?? 1, request));
  }

  private async repeat(
    record: IdempotencyRecord,
    { submission, scope, fingerprint, privacyLevel }: { submission: Submission; scope: IdempotencyScope; fingerprint: string; privacyLevel: number },
  ): Promise<void> {
    if (record.fingerprint !== fingerprint) {
      throw new ApiError(
        'idempotency_key_reused',
        `This ${IDEMPOTENCY_HEADER} was already used for a different request (body or Service-Feature-Flags); use a new key for a new request.`,
        IDEMPOTENCY_HEADER,
      );
    }
    if (record.state === 'running') {
      throw new ApiError('idempotency_request_in_progress', `A request with this ${IDEMPOTENCY_HEADER} is still running; repeat it once it has finished to get its answer.`, IDEMPOTENCY_HEADER).withHeaders({ 'retry-after': '1' });
    }
    const logHeader: Record<string, string> = record.logId ? { 'x-switchyard-log-id': record.logId } : {};
    if ('answer' in record && privacyLevel < 2) {
      submission.setHeaders({ ...logHeader, 'idempotent-replayed': 'true' });
      return replay(record.answer, submission);
    }
    if ('answer' in record) await this.deps.store.withhold(scope);
    const why =
      'withheld' in record && record.withheld === 'size'
        ? `its answer was larger than ${MAX_KEPT_ANSWER_BYTES / (1024 * 1024)} MiB and was not kept`
        : 'its answer is not kept at privacy level 2 or 3, where no request or response text rests in Redis';
    throw new ApiError('idempotency_answer_not_kept', `The request with this ${IDEMPOTENCY_HEADER} already completed, but ${why}; send a new key to run it again.`, IDEMPOTENCY_HEADER).withHeaders(logHeader);
  }
}

/** Writes a stored answer through the request's own sink, exactly as the first run was written. */
function replay(answer: StoredAnswer, { sink }: Submission): void {
  if (answer.kind === 'json') return sink.done(answer.response);
  answer.frames.forEach((frame) => sink.chunk(frame));
  sink.done(undefined);
}
