import type { AsyncJobStarter } from './async-job-starter';
import type { AuthContext } from '../auth/auth-context';
import { ApiError } from '../errors/api-error';
import { completionJobOptions } from '../queue/kept-jobs';
import type { AsyncCompletion, CompletionJob } from '../queue/payloads';
import type { CompletionRequest } from '../schemas/chat-completions';
import { unforwardedFieldError } from '../schemas/forwarded-fields';
import type { CompletionSink } from '../domain/completion-sink';
import type { ClientDeparture, CompletionGateway } from './completion-gateway';
import type { WireSink } from '../formats/wire-sink';
import { parseFeatureFlagsHeader } from '../schemas/feature-flag-header';
import type { PrivacyPolicy } from '../domain/privacy-policy';
import type { Reasoning } from '../domain/reasoning';
import { decideCompletion, privacyOf } from './decide-completion';
import { admitToSpace, applyDecision, type RateLimiter } from './rate-limiter';
import type { SpaceContext } from '../store/space-context';
import type { SpaceLookup } from './space-lookup';
import { traceContextField } from '../observability/job-trace';

export interface IntakeDeps {
  spaces: SpaceLookup;
  rateLimiter: RateLimiter;
  gateway: CompletionGateway;
  /** The reply channel of this API process for a request (its queue shard's). */
  replyChannelFor(requestId: string): string;
  /** A new request's id (random, in a completion queue shard whose Redis is answering). */
  newRequestId(): string;
  timeoutMs: number;
  /** Queues `Prefer: respond-async` requests without waiting for them. */
  asyncJobs: AsyncJobStarter;
  /** Whether webhooks can be signed: the service has a key to seal Space secrets (PLUGIN_SECRETS_KEY). */
  canSignWebhooks: boolean;
  /** The model name that asks for automatic selection (AUTO_MODEL_NAME). */
  autoModelName: string;
  /** One finished completion job in this many is kept in Redis for bull-board (COMPLETION_JOBS_KEPT_ONE_IN, queue/kept-jobs.ts). */
  keptOneIn: number;
}

/** `Prefer: respond-async`: answer 202 with the job at once; the result is read later (or pushed to a webhook). */
export interface AsyncRequest {
  /** The request's own `webhook_url`, if it named one. */
  webhookUrl: string | null;
}

export interface Submission {
  auth: AuthContext;
  request: CompletionRequest;
  /**
   * The request's reasoning, when its route decided it from a dialect that says more than chat's
   * `reasoning_effort` (Anthropic's `thinking` budget); it stands in for that field. Absent: read from the request.
   */
  reasoning?: Reasoning;
  featureFlagsHeader: string | undefined;
  /** When the client goes away before its answer is complete: its job is cancelled. */
  departure: ClientDeparture;
  /** Headers to put on the response whatever its outcome (rate-limit state). */
  setHeaders(headers: Record<string, string>): void;
  /** The response the answer is written to, in the API's wire format. */
  sink: WireSink;
  /** The API's edge formatter: turns the completion's domain events into calls on the wire sink. */
  format(wire: WireSink, identity: { requestId: string; created: number }): CompletionSink;
  /** Told once the Space and its rate limit let the request through, before its job is queued. */
  onAccepted?(accepted: AcceptedRequest): void;
  /** Present for `Prefer: respond-async`: the sink's `done` then gets the queued job (AsyncJobRecord). */
  respondAsync?: AsyncRequest;
  /** The HTTP request's id (`X-Request-Id`), carried to the worker so both processes' log lines name the request alike. */
  httpRequestId?: string;
  /** The request body's size in bytes: a large one's job is not kept in Redis once it ends (MAX_KEPT_BODY_BYTES). */
  bodyBytes?: number;
}

/** A request let into its Space: the Space at its stamp, the level it runs at, and its async form if any. */
interface Admitted {
  space: SpaceContext;
  stamp: string;
  privacy: PrivacyPolicy;
  asyncCompletion: AsyncCompletion | undefined;
}

/** What the intake resolved for a request it accepted. */
export interface AcceptedRequest {
  /** Also the id of the request's log (`x-switchyard-log-id`). */
  requestId: string;
  /** What the request's privacy level allows: the stricter of its Space's and its own. */
  privacy: PrivacyPolicy;
}

/**
 * API side of `POST /v1/chat/completions`: checks the Space and its rate limit, then hands the job to the
 * gateway (which relays the answer), or for `Prefer: respond-async` to the async starter (which answers the job).
 */
export class CompletionIntake {
  constructor(private readonly deps: IntakeDeps) {}

  async submit(submission: Submission): Promise<void> {
    const { auth, request } = submission;
    const headerFlags = parseFeatureFlagsHeader(submission.featureFlagsHeader);
    const { space, stamp, privacy, asyncCompletion } = await this.admit(submission);
    const decided = decideCompletion(request, { space, privacy, headerFlags, autoModelName: this.deps.autoModelName, reasoning: submission.reasoning });
    const receivedAt = Date.now();
    const requestId = this.deps.newRequestId();
    const job: CompletionJob = {
      requestId,
      orgId: auth.orgId,
      appId: space.id,
      spaceStamp: stamp,
      idpId: auth.idpId,
      request: decided.request,
      privacyLevel: privacy.level,
      payload: decided.payload,
      replyTo: this.deps.replyChannelFor(requestId),
      deadline: receivedAt + this.deps.timeoutMs,
      receivedAt,
      ...(asyncCompletion ? { async: asyncCompletion } : {}),
      ...(submission.httpRequestId ? { httpRequestId: submission.httpRequestId } : {}),
      ...traceContextField(),
    };
    // Set apart from the literal: a key without a list (the usual one) adds nothing to its requests.
    if (auth.allowedModels) job.allowedModels = auth.allowedModels;
    submission.onAccepted?.({ requestId: job.requestId, privacy });
    // Once the job is queued (its log will follow), also on errors, so a client can find the log of a
    // request that failed; not on a 503 for a job that never reached the queue (no log ever comes).
    const logId = () => submission.setHeaders({ 'x-switchyard-log-id': job.requestId });
    // What Redis keeps of the job once it ends, decided here once: the queue adds it with these options.
    const jobOptions = completionJobOptions({ requestId, keptJob: privacy.keptJob, bodyBytes: submission.bodyBytes, keptOneIn: this.deps.keptOneIn });
    if (asyncCompletion) {
      const record = await this.deps.asyncJobs.start(job, jobOptions);
      logId();
      return submission.sink.done(record);
    }
    const sink = submission.format(submission.sink, { requestId: job.requestId, created: Math.floor(receivedAt / 1000) });
    await this.deps.gateway.run(job, sink, { departure: submission.departure, jobOptions, onQueued: logId });
  }

  /**
   * The Space the request runs in, the request checked against it, and taken from the Space's rate limit.
   * A Space with a limit that this process has loaded is used as loaded, and the take itself confirms its
   * stamp (one Redis round trip, where reading the stamp first made two). When that stamp has moved, or
   * the Space as loaded would refuse the request, the Space is found at its current stamp and checked
   * again, so a change applies to the next request as before.
   */
  private async admit(submission: Submission): Promise<Admitted> {
    const setHeaders = (headers: Record<string, string>) => submission.setHeaders(headers);
    const loaded = this.deps.spaces.loadedForKey(submission.auth);
    let currentStamp: string | undefined;
    if (loaded && loaded.space.rateLimit > 0) {
      const checked = this.passes(loaded.space, submission);
      if (checked) {
        const { space } = loaded;
        const taken = await this.deps.rateLimiter.takeAtStamp(space.id, { limit: space.rateLimit, expected: { key: loaded.stampKey, stamp: loaded.stamp } });
        if (!('stamp' in taken)) {
          applyDecision(taken, space, setHeaders);
          return { space, stamp: loaded.stamp, ...checked };
        }
        currentStamp = taken.stamp;
      }
    }
    const { space, stamp } = await this.deps.spaces.forKey(submission.auth, currentStamp);
    const checked = this.checked(space, submission);
    await admitToSpace(this.deps.rateLimiter, space, setHeaders);
    return { space, stamp, ...checked };
  }

  /** What the request is in this Space: refused when it forwards a field the Space does not, or cannot run async. */
  private checked(space: SpaceContext, submission: Submission): Pick<Admitted, 'privacy' | 'asyncCompletion'> {
    const unforwarded = unforwardedFieldError(submission.request, space.settings.forward_fields);
    if (unforwarded) throw unforwarded;
    const privacy = privacyOf(space, submission.request);
    const asyncCompletion = submission.respondAsync ? this.asyncCompletion(submission.respondAsync, { space, privacy }) : undefined;
    return { privacy, asyncCompletion };
  }

  /** `checked`, or null where it would refuse (the refusal is then made against the Space at its current stamp). */
  private passes(space: SpaceContext, submission: Submission): Pick<Admitted, 'privacy' | 'asyncCompletion'> | null {
    try {
      return this.checked(space, submission);
    } catch {
      return null;
    }
  }

  /**
   * Checks an async request against its Space: at privacy level 3 nothing of an answer may rest anywhere,
   * so there is no result to keep (OpenAI likewise refuses background mode without `store`); a webhook
   * needs a secret to be signed with. The request's URL wins over the Space's.
   */
  private asyncCompletion(request: AsyncRequest, { space, privacy }: { space: SpaceContext; privacy: PrivacyPolicy }): AsyncCompletion {
    if (!privacy.keepsAnswer) {
      throw new ApiError(
        'invalid_request',
        "'Prefer: respond-async' is not available at privacy level 3, where no answer is kept to be read later; send the request without it.",
        'Prefer',
      );
    }
    const webhookUrl = request.webhookUrl ?? space.settings.webhook?.url ?? null;
    if (request.webhookUrl && !this.deps.canSignWebhooks) {
      throw new ApiError(
        'invalid_request',
        "This service has no key for secrets (PLUGIN_SECRETS_KEY is not configured), so webhooks cannot be signed and 'webhook_url' is refused.",
        'webhook_url',
      );
    }
    return { webhookUrl };
  }

  /**
   * The Space checks of `submit` alone, and the privacy level a request runs at now: for a repeat
   * answered without running, and for an answer kept while its Space may have changed.
   */
  async privacyNow(auth: AuthContext, request: CompletionRequest): Promise<PrivacyPolicy> {
    const { space } = await this.spaceOf(auth);
    return privacyOf(space, request);
  }

  private spaceOf(auth: AuthContext): Promise<{ space: SpaceContext; stamp: string }> {
    return this.deps.spaces.forKey(auth);
  }
}
