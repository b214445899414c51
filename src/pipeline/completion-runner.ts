import type { Logger } from 'pino';
import { ZERO_COSTS } from '../accounting/costs';
import { effectivePrivacyLevel } from '../completions/privacy-level';
import type { Reply } from '../completions/replies';
import { ApiError } from '../errors/api-error';
import type { CompletionJob } from '../queue/payloads';
import type { ProviderRegistry } from '../providers/registry';
import type { Resilience } from '../resilience/resilience';
import type { LatencyTracker } from '../routing/latency-tracker';
import { profileRequest } from '../routing/request-profile';
import type { RouterModel } from '../routing/learned/router-model';
import type { SpaceFeedback } from '../routing/online/space-feedback';
import type { QualityEstimator } from '../routing/scorer';
import type { CompletionSources } from '../store/completion-sources';
import { NO_USAGE, type AttemptRecord } from './attempt-record';
import { AttemptsExhausted } from './attempt-runner';
import type { LogBatcher } from './log-batcher';
import { logRowsFor, type RequestOutcome } from './log-rows';
import { planModels } from './model-plan';
import { prepareCompletion } from './prepare-request';
import type { RunContext } from './run-context';
import type { SpaceContext, SpaceContextLoader } from './space-context';
import { streamCompletion } from './stream-completion';
import { failureToApiError } from './upstream-failure';
import { wholeCompletion } from './whole-completion';

export interface RunnerDeps {
  spaces: SpaceContextLoader;
  sources: CompletionSources;
  registry: ProviderRegistry;
  latency: LatencyTracker;
  /** The learned router: reads prompts; `quality` turns its reading into each catalog model's estimate. */
  router: RouterModel;
  quality: QualityEstimator;
  /** Each Space's ratings, for requests with `smart_learn` on. */
  feedback: SpaceFeedbackSource;
  logs: LogBatcher;
  logger: Logger;
  autoModelName: string;
  resilience: Resilience;
  publish(channel: string, reply: Reply): Promise<void>;
  /** Whether the organization can see a model of that name at all (for a precise error). */
  modelExists(orgId: string, name: string): Promise<boolean>;
}

export interface SpaceFeedbackSource {
  load(appId: string): Promise<SpaceFeedback>;
}

export interface RunSummary {
  statusCode: number;
  model: string | null;
  /** The level the request ran at: the job's own data must not keep its text past level 1. */
  privacyLevel: number;
}

/**
 * Turns what went wrong into the client's error and the request's log. Anything that is not an
 * ApiError is a bug of ours: it is logged, and the client is still answered at once with a 500.
 */
function failure(err: unknown, job: CompletionJob, logger: Logger): { error: ApiError; records: AttemptRecord[] } {
  if (err instanceof AttemptsExhausted) {
    const allRateLimited = err.records.length > 0 && err.records.every((r) => r.error?.kind === 'rate_limited');
    return { error: failureToApiError(err.last, { allRateLimited }), records: err.records };
  }
  if (err instanceof ApiError) return { error: err, records: [] };
  logger.error({ err }, 'completion failed unexpectedly');
  return { error: new ApiError('internal_error', `Internal error. Quote request id ${job.requestId} when reporting it.`), records: [] };
}

/** A job nobody waits for any more (its client left, or it waited in the queue past its deadline) calls no upstream. */
function checkStillWanted(job: CompletionJob, signal: AbortSignal): void {
  if (Date.now() > job.deadline) throw new ApiError('timeout', 'The completion waited in the queue past its deadline.');
  if (signal.aborted) throw new ApiError('timeout', 'The request was cancelled before it started.');
}

/** nginx's "client closed request": what the log of a request whose client left says. */
const CLIENT_CLOSED_REQUEST = 499;

/** A cancelled request's logged status: its deadline passed (504), or else its client left. */
function cancelledStatus(job: CompletionJob): number {
  return Date.now() >= job.deadline ? 504 : CLIENT_CLOSED_REQUEST;
}

/**
 * Longest an answer waits for its log's commit, in ms. A database that hangs (a lock, a partition) must
 * not hold back an answer that is ready; past it the answer goes out and the write goes on.
 */
export const LOG_COMMIT_WAIT_MS = 5000;

/** Resolves with true once `work` settles, or with false after `ms`. */
function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([work.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

/** Worker side of a completion: prepare, plan, call, reply, log. */
export class CompletionRunner {
  constructor(private readonly deps: RunnerDeps) {}

  /**
   * Runs one job: answers the client and writes the request's one log, whatever happens. The message
   * that completes the answer (`done` or `error`) is held until the log is committed (at most
   * LOG_COMMIT_WAIT_MS), so a client that has its answer can read (and rate) its log at once; stream
   * chunks go out as they come.
   */
  async run(job: CompletionJob, signal: AbortSignal, run: string): Promise<RunSummary> {
    const held: Reply[] = [];
    const reply = async (message: Reply) => {
      if (message.type === 'chunk') await this.deps.publish(job.replyTo, message);
      else held.push(message);
    };
    const logger = this.deps.logger.child({ request_id: job.requestId, app_id: job.appId });
    let space: SpaceContext | null = null;
    let outcome: RequestOutcome;
    try {
      space = await this.deps.spaces.load(job.appId, job.spaceStamp);
      if (!space) throw ApiError.notFound('Space', 'Authorization');
      checkStillWanted(job, signal);
      outcome = await this.answer(job, { space, signal, run, reply, logger });
    } catch (err) {
      const { error, records } = failure(err, job, logger);
      await reply({ type: 'error', requestId: job.requestId, run, status: error.status, body: error.toBody(), headers: { ...error.headers } });
      outcome = this.failureOutcome(job, space, { error, records });
      if (signal.aborted) outcome.statusCode = cancelledStatus(job);
    }
    // A Space deleted meanwhile has nothing left to attach a log to.
    if (space) await this.writeLog(outcome, logger);
    for (const message of held) await this.deps.publish(job.replyTo, message);
    return { statusCode: outcome.statusCode, model: outcome.model?.model ?? null, privacyLevel: outcome.privacyLevel };
  }

  private async answer(job: CompletionJob, inputs: Pick<RunContext, 'space' | 'signal' | 'run' | 'reply' | 'logger'>): Promise<RequestOutcome> {
    const { space } = inputs;
    const prepared = await prepareCompletion({ job, space, sources: this.deps.sources, autoModelName: this.deps.autoModelName });
    const profile = profileRequest({ ...prepared.chat, model: '' }, this.deps.router);
    const feedback = prepared.flags.smart_learn === true ? await this.deps.feedback.load(space.id) : null;
    const plan = await planModels({
      prepared,
      space,
      profile,
      registry: this.deps.registry,
      scoring: { weights: prepared.weights, quality: this.deps.quality, expectedLatency: (model) => this.deps.latency.expected(model.id) },
      routerVersion: this.deps.router.version,
      learning: feedback && { requestId: job.requestId, feedback },
      now: new Date(),
      modelExists: (name) => this.deps.modelExists(job.orgId, name),
    });
    const warnings = prepared.plugins.length > 0 ? [`Plugins are not available in this version and were not run: ${prepared.plugins.join(', ')}.`] : [];
    const ctx: RunContext = { ...inputs, job, prepared, plan, registry: this.deps.registry, latency: this.deps.latency, resilience: this.deps.resilience, warnings };
    return prepared.stream ? streamCompletion(ctx, profile.promptTokens) : wholeCompletion(ctx, profile.promptTokens);
  }

  private failureOutcome(job: CompletionJob, space: SpaceContext | null, { error, records }: { error: ApiError; records: AttemptRecord[] }): RequestOutcome {
    const privacyLevel = effectivePrivacyLevel(space?.policies.privacy_level ?? 1, job.request);
    return {
      job,
      privacyLevel,
      isTest: space?.isSandbox ?? false,
      model: records.at(-1)?.model ?? null,
      statusCode: error.status,
      response: error.toBody(),
      responseText: '',
      usage: NO_USAGE,
      costs: ZERO_COSTS,
      savings: ZERO_COSTS,
      latencyMs: -1,
      labels: job.request.custom_headers?.labels ?? {},
      records,
    };
  }

  /** Never throws: whatever happens to the log, the held answer still goes out. */
  private async writeLog(outcome: RequestOutcome, logger: Logger): Promise<void> {
    let rows: ReturnType<typeof logRowsFor>;
    try {
      rows = logRowsFor(outcome);
    } catch (err) {
      logger.error({ err }, 'request log not built');
      return;
    }
    if (!rows) return;
    const written = this.deps.logs.write(rows).catch((err: unknown) => logger.error({ err }, 'request log lost'));
    if (!(await settlesWithin(written, LOG_COMMIT_WAIT_MS))) logger.warn({ wait_ms: LOG_COMMIT_WAIT_MS }, 'answer released before its log was committed');
  }
}
