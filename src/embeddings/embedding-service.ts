import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AuthContext } from '../auth/auth-context';
import { privacyPolicyOf, type PrivacyPolicy } from '../domain/privacy-policy';
import { admitToSpace, type RateLimiter } from '../intake/rate-limiter';
import type { SpaceLookup } from '../intake/space-lookup';
import type { EmbeddingResult } from '../domain/embedding';
import type { RoutableModel } from '../domain/routable-model';
import { ApiError } from '../errors/api-error';
import type { AttemptRecord } from '../pipeline/attempt-record';
import { AttemptsExhausted } from '../pipeline/attempt-runner';
import type { LogBatcher } from '../store/log-batcher';
import type { SpaceContext } from '../store/space-context';
import { failureToApiError } from '../pipeline/upstream-failure';
import type { ProviderRegistry } from '../providers/registry';
import type { EmbeddingRequestBody } from '../schemas/embeddings';
import { embedWithRetries } from './embedding-attempts';
import { recordEmbeddings } from '../pipeline/completion-telemetry';
import { embeddingFigures, embeddingLogRows, type EmbeddingOutcome } from './embedding-log';
import { chooseEmbeddingModel } from './embedding-model-choice';

export interface EmbeddingServiceDeps {
  spaces: SpaceLookup;
  rateLimiter: RateLimiter;
  registry: ProviderRegistry;
  logs: LogBatcher;
  logger: Logger;
  /** The service's own name, which asks for the automatic choice. */
  autoModelName: string;
  /** Longest upstream call, in ms, unless the Space's `upstream_timeout_ms` says otherwise. */
  upstreamTimeoutMs: number;
  /** Longest whole request, retries included, in ms. */
  requestTimeoutMs: number;
  /** Whether a model of that name exists for the organization (public or its own). */
  modelExists(orgId: string, name: string): Promise<boolean>;
}

export interface EmbeddingCall {
  auth: AuthContext;
  request: EmbeddingRequestBody;
  /** Aborts the upstream call when the client goes away. */
  signal: AbortSignal;
  /** Headers for the response whatever its outcome (rate-limit state, the log's id). */
  setHeaders(headers: Record<string, string>): void;
  /** The HTTP request's id (`X-Request-Id`), named in this request's log lines as `request_id`. */
  httpRequestId: string;
}

/** A request past its Space's checks and rate limit: from here on it is logged. */
interface Accepted {
  call: EmbeddingCall;
  space: SpaceContext;
  requestId: string;
  receivedAt: number;
  privacy: PrivacyPolicy;
}

/**
 * `POST /v1/embeddings`, run in the API process: one short upstream call (or a few, with retries) whose
 * answer is only vectors, so it does not take the completion queue (see docs/embeddings.md). The same
 * Space checks, rate limit, privacy levels and request log as a completion.
 */
export class EmbeddingService {
  constructor(private readonly deps: EmbeddingServiceDeps) {}

  async create(call: EmbeddingCall): Promise<{ model: RoutableModel; result: EmbeddingResult }> {
    const { space } = await this.deps.spaces.forKey(call.auth);
    await admitToSpace(this.deps.rateLimiter, space, call.setHeaders);
    const accepted: Accepted = { call, space, requestId: randomUUID(), receivedAt: Date.now(), privacy: privacyPolicyOf(space.policies.privacy_level) };
    // Also on errors, so a client can find the log of a request that failed.
    call.setHeaders({ 'x-switchyard-log-id': accepted.requestId });
    let model: RoutableModel | null = null;
    let records: AttemptRecord[] = [];
    try {
      model = await this.choose(accepted);
      const answered = await this.embed(accepted, model);
      records = answered.records;
      await this.log(accepted, { model, records, ended: { result: answered.result } });
      return { model, result: answered.result };
    } catch (err) {
      if (err instanceof AttemptsExhausted) records = err.records;
      const error = err instanceof AttemptsExhausted ? failureToApiError(err.last, { allRateLimited: err.last.kind === 'rate_limited' }) : err;
      if (error instanceof ApiError) await this.log(accepted, { model, records, ended: { error } });
      throw error;
    }
  }

  private choose({ call, space, privacy }: Accepted): Promise<RoutableModel> {
    const { registry } = this.deps;
    return chooseEmbeddingModel({
      space,
      requested: call.request.model,
      autoModelName: this.deps.autoModelName,
      privacy,
      canEmbed: (model) => registry.resolve(model)?.provider.embed !== undefined,
      modelExists: (name) => this.deps.modelExists(call.auth.orgId, name),
      now: new Date(),
      allowedModels: call.auth.allowedModels,
    });
  }

  private embed({ call, space, receivedAt, requestId }: Accepted, model: RoutableModel) {
    const binding = this.deps.registry.resolve(model);
    if (!binding)
      throw new ApiError('model_not_available', `Model '${model.model}' is unavailable: its provider '${model.provider}' is not configured.`, 'model');
    const { input, dimensions, user } = call.request;
    return embedWithRetries({
      model,
      binding,
      request: { model: model.namespace, inputs: typeof input === 'string' ? [input] : isTokenIds(input) ? [input] : input, dimensions, user },
      maxRetries: space.policies.max_same_model_retries,
      callTimeoutMs: space.policies.upstream_timeout_ms ?? this.deps.upstreamTimeoutMs,
      deadline: receivedAt + this.deps.requestTimeoutMs,
      signal: call.signal,
      logger: this.deps.logger.child({ request_id: call.httpRequestId, log_id: requestId, app_id: space.id, provider: model.provider }),
    });
  }

  /**
   * Writes the request's log (none at privacy level 3) and counts it in the metrics (at every level:
   * they hold no content); a log that cannot be written does not fail the answer.
   */
  private async log(accepted: Accepted, outcome: Pick<EmbeddingOutcome, 'model' | 'records' | 'ended'>): Promise<void> {
    const { call, space } = accepted;
    const figures = embeddingFigures({ ...outcome, benchmark: space.embeddingBenchmark });
    recordEmbeddings(
      {
        appId: space.id,
        records: outcome.records,
        promptTokens: figures.usage.prompt_tokens,
        cost: figures.costs.total_tokens,
        savings: figures.savings.total_tokens,
      },
      this.deps.logger,
    );
    const rows = embeddingLogRows({
      ...outcome,
      requestId: accepted.requestId,
      orgId: space.orgId,
      appId: space.id,
      idpId: call.auth.idpId,
      receivedAt: accepted.receivedAt,
      privacy: accepted.privacy,
      isTest: space.isSandbox,
      request: call.request,
      benchmark: space.embeddingBenchmark,
    });
    if (!rows) return;
    await this.deps.logs
      .write(rows)
      .catch((err: unknown) => this.deps.logger.error({ err, request_id: call.httpRequestId, log_id: accepted.requestId }, 'embeddings log not written'));
  }
}

/** A flat array of token ids is one input, not many. */
function isTokenIds(input: EmbeddingRequestBody['input']): input is number[] {
  return Array.isArray(input) && typeof input[0] === 'number';
}
