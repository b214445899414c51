import { backendClient } from '../src/net/backend-client';
import type { PluginSelector } from '../src/pipeline/plugin-plan';
import { PluginSteps } from '../src/pipeline/plugin-steps';
import type { Plugin, PluginId } from '../src/plugins/types';
import type { Services } from '../src/services/container';

/** Longest plugin run, in ms. */
const PLUGIN_TIMEOUT_MS = 20_000;

/** The plugins, their shared limits and cache, built once per worker process. */
export interface WorkerPlugins {
  steps: PluginSteps;
  select: PluginSelector;
  spaceHasFiles(appId: string): Promise<boolean>;
}

// INTEGRATION PENDING (replaced when the plugin branches merge): the plugin set, limiter, cache and selector.
export function workerPlugins(services: Services): WorkerPlugins {
  void services;
  const plugins = new Map<PluginId, Plugin>();
  const steps = new PluginSteps({
    plugins,
    limiter: { run: (_key, _limit, work) => work() },
    cache: { get: async () => null, set: async () => undefined },
    cacheTtlSeconds: 0,
    concurrencyFor: () => 16,
    timeoutMs: PLUGIN_TIMEOUT_MS,
    backend: backendClient,
    untrusted: backendClient,
  });
  return { steps, select: () => [], spaceHasFiles: async () => false };
}
