import { randomUUID } from 'node:crypto';
import type { AuthContext } from '../auth/auth-context';
import { ApiError } from '../errors/api-error';
import type { CompletionJob } from '../queue/payloads';
import type { CompletionRequest } from '../schemas/chat-completions';
import type { CompletionGateway, CompletionSink } from './completion-gateway';
import type { WireSink } from './wire-sink';
import { parseFeatureFlagsHeader } from './feature-flags';
import { effectivePrivacyLevel } from './privacy-level';
import { rateLimitHeaders, type RateLimiter } from './rate-limiter';
import type { SpaceContext } from '../pipeline/space-context';
import type { SpaceLookup } from './space-lookup';

export interface IntakeDeps {
  spaces: SpaceLookup;
  rateLimiter: RateLimiter;
  gateway: CompletionGateway;
  replyChannel: string;
  timeoutMs: number;
}

export interface Submission {
  auth: AuthContext;
  request: CompletionRequest;
  featureFlagsHeader: string | undefined;
  signal: AbortSignal;
  /** Headers to put on the response whatever its outcome (rate-limit state). */
  setHeaders(headers: Record<string, string>): void;
  /** The response the answer is written to, in the API's wire format. */
  sink: WireSink;
  /** The API's edge formatter: turns the completion's domain events into calls on the wire sink. */
  format(wire: WireSink, identity: { requestId: string; created: number }): CompletionSink;
  /** Told once the Space and its rate limit let the request through, before its job is queued. */
  onAccepted?(accepted: AcceptedRequest): void;
}

/** What the intake resolved for a request it accepted. */
export interface AcceptedRequest {
  /** Also the id of the request's log (`x-switchyard-log-id`). */
  requestId: string;
  /** The level the request runs at: the stricter of its Space's and its own. */
  privacyLevel: number;
}

/** API side of `POST /v1/chat/completions`: checks the Space and its rate limit, then hands the job to the gateway. */
export class CompletionIntake {
  constructor(private readonly deps: IntakeDeps) {}

  async submit(submission: Submission): Promise<void> {
    const { auth, request } = submission;
    const headerFlags = parseFeatureFlagsHeader(submission.featureFlagsHeader);
    const { space, stamp } = await this.spaceOf(auth);
    if (space.rateLimit > 0) {
      const decision = await this.deps.rateLimiter.take(space.id, space.rateLimit);
      const headers = rateLimitHeaders(decision);
      submission.setHeaders(headers);
      if (!decision.allowed) {
        throw new ApiError('rate_limit_exceeded', `Rate limit of ${space.rateLimit} requests per minute reached for this Space.`).withHeaders(headers);
      }
    }
    const receivedAt = Date.now();
    const job: CompletionJob = {
      requestId: randomUUID(),
      orgId: auth.orgId,
      appId: space.id,
      spaceStamp: stamp,
      idpId: auth.idpId,
      request,
      headerFlags,
      replyTo: this.deps.replyChannel,
      deadline: receivedAt + this.deps.timeoutMs,
      receivedAt,
    };
    const privacyLevel = effectivePrivacyLevel(space.policies.privacy_level, request);
    submission.onAccepted?.({ requestId: job.requestId, privacyLevel });
    // Also on errors, so a client can find the log of a request that failed.
    submission.setHeaders({ 'x-switchyard-log-id': job.requestId });
    const sink = submission.format(submission.sink, { requestId: job.requestId, created: Math.floor(receivedAt / 1000) });
    await this.deps.gateway.run(job, sink, { signal: submission.signal, privacyLevel });
  }

  /**
   * The Space checks of `submit` alone, and the privacy level a request runs at now: for a repeat
   * answered without running, and for an answer kept while its Space may have changed.
   */
  async privacyLevelNow(auth: AuthContext, request: CompletionRequest): Promise<number> {
    const { space } = await this.spaceOf(auth);
    return effectivePrivacyLevel(space.policies.privacy_level, request);
  }

  private async spaceOf(auth: AuthContext): Promise<{ space: SpaceContext; stamp: string }> {
    if (!auth.appId) {
      throw new ApiError('invalid_request', 'This key is not bound to a Space; completions need a Space key (see `cli keys create --app-id`).', 'Authorization');
    }
    const { space, stamp } = await this.deps.spaces.find(auth.appId);
    if (!space || space.orgId !== auth.orgId) throw ApiError.notFound('Space', 'Authorization');
    if (!space.isActive) throw new ApiError('space_inactive', 'This Space is deactivated.');
    return { space, stamp };
  }
}
