import type { Logger } from 'pino';
import type { AsyncJobFinisher } from '../async-jobs/job-finisher';
import type { Reply } from '../queue/replies';
import type { CompletionResult } from '../domain/completion';
import { finishesWithinLoopTime } from '../domain/finishes-within';
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
import { AttemptsExhausted } from './attempt-runner';
import { answerRequest, type Answered } from './answer-request';
import type { LogBatcher } from '../store/log-batcher';
import { logRowsFor, type RequestOutcome } from './log-rows';
import { planModels } from './model-plan';
import type { PluginSelector } from './plugin-plan';
import type { PluginSteps } from './plugin-steps';
import { prepareCompletion } from './prepare-request';
import type { Run } from './run';
import type { StepServices } from './step-services';
import { RunTrace } from './run-trace';
import type { SpaceContext, SpaceContextLoader } from '../store/space-context';
import { failureToApiError } from './upstream-failure';
import { recordCompletion } from './completion-telemetry';
import { metadataJsonOf } from '../formats/completion-metadata';
import { markLoopOwner } from '../observability/loop-owner';
import { lazyChild } from '../logging/lazy-child';

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
  plugins: PluginSteps;
  /** auto_tools' pre-selection classifier. */
  selectPlugins: PluginSelector;
  /** Whether a Space has files for space-search (pre-selection only proposes it then). */
  spaceHasFiles(appId: string): Promise<boolean>;
  logs: LogBatcher;
  logger: Logger;
  autoModelName: string;
  resilience: Resilience;
  publish(channel: string, reply: Reply): Promise<void>;
  /** Stores how an async job (`Prefer: respond-async`) ended, where a synchronous one's final reply is published. */
  asyncJobs: Pick<AsyncJobFinisher, 'finish'>;
  /** Whether the organization can see a model of that name at all (for a precise error). */
  modelExists(orgId: string, name: string): Promise<boolean>;
}

/** A run's summary and how it ended (the answer or the failure), for a caller that formats it itself. */
export interface DetachedRun {
  summary: RunSummary;
  ended: RequestOutcome['ended'];
}

export interface SpaceFeedbackSource {
  load(appId: string): Promise<SpaceFeedback>;
}

/** What a run hands back to BullMQ (bull-board's "return value"): figures only, never the conversation. */
export interface RunSummary {
  statusCode: number;
  model: string | null;
}

/**
 * What went wrong, as the client is told. Anything that is not an ApiError (or every attempt failing)
 * is a bug of ours: it is logged, and the client is still answered at once with a 500.
 */
function failureOf(err: unknown, job: CompletionJob, { logger, trace }: { logger: Logger; trace: RunTrace }): ApiError {
  if (err instanceof AttemptsExhausted) {
    trace.addAttempts(err.records);
    const allRateLimited = err.records.length > 0 && err.records.every((r) => r.error?.kind === 'rate_limited');
    return failureToApiError(err.last, { allRateLimited });
  }
  if (err instanceof ApiError) return err;
  logger.error({ err }, 'completion failed unexpectedly');
  return new ApiError('internal_error', `Internal error. Quote request id ${job.requestId} when reporting it.`);
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
 * Longest an answer waits for its log's commit, in ms of the process's own time (finishesWithinLoopTime). A
 * database that hangs (a lock, a partition) must not hold back an answer that is ready; past it the answer
 * goes out and the write goes on.
 */
export const LOG_COMMIT_WAIT_MS = 5000;

/**
 * The final reply of an answered run: the answer (a streamed answer's text went out as deltas, so its
 * choices stay behind) and the report as the response's metadata, serialised here once.
 */
function doneReply(job: CompletionJob, run: string, result: CompletionResult): Reply {
  const { report: _report, ...answer } = result;
  if (job.request.stream) answer.choices = [];
  return { type: 'done', requestId: job.requestId, run, answer, metadata: metadataJsonOf(result) };
}

interface RunInputs {
  space: SpaceContext;
  signal: AbortSignal;
  run: string;
  reply(reply: Reply): Promise<void>;
  logger: Logger;
  trace: RunTrace;
}

/** What a publish that has nothing to wait for answers. */
const SETTLED: Promise<void> = Promise.resolve();

/** Worker side of a completion: prepare, plan, run its steps (plugins and model calls), reply, log. */
export class CompletionRunner {
  /** The services every run's steps call. */
  private readonly steps: StepServices;

  constructor(private readonly deps: RunnerDeps) {
    this.steps = { registry: deps.registry, latency: deps.latency, resilience: deps.resilience, plugins: deps.plugins };
  }

  /**
   * Runs one job: answers the client and writes the request's one log, whatever happens. The message
   * that completes the answer (`done` or `error`) is held until the log is committed (at most
   * LOG_COMMIT_WAIT_MS), so a client that has its answer can read (and rate) its log at once; stream
   * deltas go out as they come.
   */
  async run(job: CompletionJob, signal: AbortSignal, run: string): Promise<RunSummary> {
    return (await this.execute(job, signal, run)).summary;
  }

  /** Runs a job nobody waits for live (a batch line, no `replyTo`): nothing is published, the outcome is handed back. */
  runDetached(job: CompletionJob, signal: AbortSignal, run: string): Promise<DetachedRun> {
    return this.execute(job, signal, run);
  }

  private async execute(job: CompletionJob, signal: AbortSignal, run: string): Promise<DetachedRun> {
    // A plain function, not an async one: a stream's every delta passes through it, and each async layer costs a promise.
    const publish = (message: Reply): Promise<void> => (job.replyTo ? this.deps.publish(job.replyTo, message) : SETTLED);
    // Made only if the run logs a line (most log none).
    const logger = lazyChild(this.deps.logger, { request_id: job.httpRequestId ?? job.requestId, log_id: job.requestId, app_id: job.appId });
    const trace = new RunTrace();
    let space: SpaceContext | null = null;
    let ended: RequestOutcome['ended'];
    let responseText = '';
    try {
      space = await this.deps.spaces.load(job.appId, job.spaceStamp);
      markLoopOwner(job.httpRequestId ?? job.requestId);
      if (!space) throw ApiError.notFound('Space', 'Authorization');
      checkStillWanted(job, signal);
      ({ ended, responseText } = await this.answer(job, { space, signal, run, reply: publish, logger, trace }));
    } catch (err) {
      ended = { failure: failureOf(err, job, { logger, trace }).toFailure() };
    }
    // How the client is told it ended; the log of a cancelled request says so instead.
    const told = ended;
    // However the steps ended (thrown, or a stream broken off by the cancellation), a cancelled request is logged as one.
    if (signal.aborted && 'failure' in ended) ended = { ...ended, failure: { ...ended.failure, status: cancelledStatus(job) } };
    markLoopOwner(job.httpRequestId ?? job.requestId);
    // A Space deleted meanwhile has nothing left to attach a log to.
    if (space) await this.writeLog({ job, isTest: space.isSandbox, trace, ended, responseText, endedAt: 'result' in ended ? undefined : Date.now() }, logger);
    // The answer goes out once its log is committed: a client waiting live is sent it, an async job stores it, a batch line takes it back.
    if (job.async)
      await this.deps.asyncJobs.finish(job, { ended: 'result' in told ? { result: told.result } : { failure: told.failure }, aborted: signal.aborted });
    else if (job.replyTo)
      await publish('result' in told ? doneReply(job, run, told.result) : { type: 'error', requestId: job.requestId, run, failure: told.failure });
    const statusCode = 'result' in ended ? ended.result.statusCode : ended.failure.status;
    return { summary: { statusCode, model: trace.lastModel()?.model ?? null }, ended };
  }

  private async answer(job: CompletionJob, inputs: RunInputs): Promise<Answered> {
    const { space } = inputs;
    const prepared = await prepareCompletion({
      request: job.request,
      privacyLevel: job.privacyLevel,
      orgId: job.orgId,
      space,
      sources: this.deps.sources,
      autoModelName: this.deps.autoModelName,
    });
    inputs.trace.namedIdsChecked = true;
    // The profile reads the messages, tools, response format and max_tokens, not the model: no copy with it blanked.
    const profile = profileRequest(prepared.chat, this.deps.router);
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
      allowedModels: job.allowedModels,
      autoModelName: this.deps.autoModelName,
    });
    // One literal, not `{ ...inputs, job, ... }`: properties added after a spread are added one by one, and cost allocations.
    const { signal, run: id, reply, logger, trace } = inputs;
    const run: Run = { job, id, space, prepared, plan, trace, signal, logger, reply };
    return answerRequest(run, this.steps, {
      promptTokens: () => profile.promptTokens,
      selector: this.deps.selectPlugins,
      spaceHasFiles: this.deps.spaceHasFiles,
    });
  }

  /** Never throws: whatever happens to the log, the held answer still goes out. */
  private async writeLog(outcome: RequestOutcome, logger: Logger): Promise<void> {
    recordCompletion(outcome, logger);
    let rows: ReturnType<typeof logRowsFor>;
    try {
      rows = logRowsFor(outcome);
    } catch (err) {
      logger.error({ err }, 'request log not built');
      return;
    }
    if (!rows) return;
    const written = this.deps.logs.write(rows).catch((err: unknown) => logger.error({ err }, 'request log lost'));
    if (!(await finishesWithinLoopTime(written, LOG_COMMIT_WAIT_MS)))
      logger.warn({ wait_ms: LOG_COMMIT_WAIT_MS }, 'answer released before its log was committed');
  }
}
