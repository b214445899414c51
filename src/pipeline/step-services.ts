import type { ProviderRegistry } from '../providers/registry';
import type { Resilience, UpstreamTimeouts } from '../resilience/resilience';
import type { LatencyTracker } from '../routing/latency-tracker';
import type { AttemptOptions } from './attempt-runner';
import type { PluginSteps } from './plugin-steps';
import type { Run } from './run';

/** The worker process's services that a run's steps call, built once per process. */
export interface StepServices {
  registry: ProviderRegistry;
  latency: LatencyTracker;
  resilience: Resilience;
  plugins: PluginSteps;
}

export function attemptOptions(run: Run, { registry, resilience }: Pick<StepServices, 'registry' | 'resilience'>): AttemptOptions {
  return {
    prepared: run.prepared,
    attempts: run.plan.choices,
    maxSameModelRetries: run.prepared.policies.max_same_model_retries,
    maxSwitches: run.prepared.policies.max_switch_model_retries,
    registry,
    signal: run.signal,
    timeouts: timeoutsOf(run, resilience),
    deadline: run.job.deadline,
    logger: run.logger,
    breakers: resilience.breakers,
    budget: resilience.budget,
  };
}

/** The Space's timeouts (or the request's, through `custom_headers.policies`), else the service's. */
export function timeoutsOf(run: Pick<Run, 'prepared'>, resilience: Resilience): UpstreamTimeouts {
  const { policies } = run.prepared;
  const defaults = resilience.timeouts;
  const callMs = policies.upstream_timeout_ms ?? defaults.callMs;
  return { firstByteMs: Math.min(policies.first_byte_timeout_ms ?? defaults.firstByteMs, callMs), callMs };
}
