import type { Logger } from 'pino';
import { costOf, savingsOf } from '../accounting/costs';
import type { Reply } from '../completions/replies';
import type { ChatChoice, Usage } from '../domain/chat';
import type { RoutableModel } from '../domain/routable-model';
import type { CompletionJob } from '../queue/payloads';
import type { ProviderRegistry } from '../providers/registry';
import type { Resilience, UpstreamTimeouts } from '../resilience/resilience';
import type { LatencyTracker } from '../routing/latency-tracker';
import type { AttemptRecord } from './attempt-record';
import type { AttemptOptions } from './attempt-runner';
import type { RequestOutcome } from './log-rows';
import type { ModelPlan } from './model-plan';
import type { PreparedCompletion } from './prepare-request';
import type { CompletionFacts } from './response-builder';
import type { SpaceContext } from './space-context';
import { responseTextOf } from './stream-assembler';

/** One run of one completion job, after its Space, request and model plan are known. */
export interface RunContext {
  job: CompletionJob;
  run: string;
  space: SpaceContext;
  prepared: PreparedCompletion;
  plan: ModelPlan;
  signal: AbortSignal;
  registry: ProviderRegistry;
  latency: LatencyTracker;
  resilience: Resilience;
  logger: Logger;
  /** Extra warnings for metadata.warning (e.g. ignored plugins). */
  warnings: string[];
  reply(reply: Reply): Promise<void>;
}

export function attemptOptions(ctx: RunContext): AttemptOptions {
  return {
    prepared: ctx.prepared,
    attempts: ctx.plan.attempts,
    maxSameModelRetries: ctx.prepared.policies.max_same_model_retries,
    registry: ctx.registry,
    signal: ctx.signal,
    timeouts: timeoutsOf(ctx),
    deadline: ctx.job.deadline,
    logger: ctx.logger,
    breakers: ctx.resilience.breakers,
    budget: ctx.resilience.budget,
  };
}

/** The Space's timeouts (or the request's, through `custom_headers.policies`), else the service's. */
export function timeoutsOf(ctx: RunContext): UpstreamTimeouts {
  const { policies } = ctx.prepared;
  const defaults = ctx.resilience.timeouts;
  const callMs = policies.upstream_timeout_ms ?? defaults.callMs;
  return { firstByteMs: Math.min(policies.first_byte_timeout_ms ?? defaults.firstByteMs, callMs), callMs };
}

export interface Answer {
  model: RoutableModel;
  usage: Usage;
  records: AttemptRecord[];
  notes: string[];
  latencyMs: number;
  extraWarnings?: string[];
}

/** The figures of a successful answer, for its response and its log. */
export function factsOf(ctx: RunContext, answer: Answer): CompletionFacts {
  const costs = costOf(answer.model, answer.usage);
  return {
    requestId: ctx.job.requestId,
    appId: ctx.space.id,
    created: Math.floor(ctx.job.receivedAt / 1000),
    model: answer.model,
    plan: ctx.plan,
    usage: answer.usage,
    costs,
    savings: savingsOf(ctx.space.benchmark, answer.usage, costs),
    latencyMs: answer.latencyMs,
    retries: answer.records.length - 1,
    statusCode: 200,
    warnings: [...ctx.plan.warnings, ...answer.notes, ...ctx.warnings, ...(answer.extraWarnings ?? [])],
    labels: ctx.prepared.labels,
    temperature: ctx.prepared.chat.temperature,
    maxTokens: ctx.prepared.chat.max_tokens,
  };
}

export function successOutcome(ctx: RunContext, facts: CompletionFacts, response: { response: object; choices: ChatChoice[]; records: AttemptRecord[] }): RequestOutcome {
  return {
    job: ctx.job,
    privacyLevel: ctx.prepared.policies.privacy_level,
    isTest: ctx.space.isSandbox,
    model: facts.model,
    statusCode: facts.statusCode,
    response: response.response,
    responseText: responseTextOf(response.choices),
    usage: facts.usage,
    costs: facts.costs,
    savings: facts.savings,
    latencyMs: facts.latencyMs,
    labels: ctx.prepared.labels,
    records: response.records,
  };
}
