import type { Logger } from 'pino';
import type { Reply } from '../queue/replies';
import type { CompletionJob } from '../queue/payloads';
import type { ProviderRegistry } from '../providers/registry';
import type { Resilience, UpstreamTimeouts } from '../resilience/resilience';
import type { LatencyTracker } from '../routing/latency-tracker';
import type { AttemptOptions } from './attempt-runner';
import type { ModelPlan } from './model-plan';
import type { PluginSteps } from './plugin-steps';
import type { PreparedCompletion } from './prepare-request';
import type { RunTrace } from './run-trace';
import type { SpaceContext } from './space-context';

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
  plugins: PluginSteps;
  logger: Logger;
  trace: RunTrace;
  /** Sends a message to the API process waiting for the request (the final one is held until the log is committed). */
  reply(reply: Reply): Promise<void>;
}

export function attemptOptions(ctx: RunContext): AttemptOptions {
  return {
    prepared: ctx.prepared,
    attempts: ctx.plan.choices,
    maxSameModelRetries: ctx.prepared.policies.max_same_model_retries,
    maxSwitches: ctx.prepared.policies.max_switch_model_retries,
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
