import { concurrencyFor } from '../config/plugins/net';
import { backendClient } from '../net/backend-client';
import { createSafeClient } from '../net/safe-fetch';
import type { PluginSelector } from '../pipeline/plugin-plan';
import { PluginSteps } from '../pipeline/plugin-steps';
import { BackendLimiter } from '../plugins/backend-limits';
import { buildPlugins } from '../plugins/build-plugins';
import { classifyPlugins } from '../plugins/pre-selection';
import { PluginResultCache } from '../plugins/result-cache';
import { secretBoxFor } from '../secrets/secret-box';
import type { WorkerServices } from '../../workers/worker-services';
import { SpaceFileRepository } from '../store/space-files';

/** The plugins, their shared limits and cache, built once per worker process. */
export interface WorkerPlugins {
  steps: PluginSteps;
  select: PluginSelector;
  spaceHasFiles(appId: string): Promise<boolean>;
  close(): Promise<void>;
}

export function workerPlugins(services: WorkerServices): WorkerPlugins {
  const { config, redis, logger, db } = services;
  const { net } = config.plugins;
  const limiter = new BackendLimiter(redis, config.redisPrefix, logger);
  const steps = new PluginSteps({
    // Every plugin of the catalog, built from the service configuration (each says itself whether it can run).
    plugins: buildPlugins({ config: config.plugins, db, secrets: secretBoxFor(config.secrets.keys) }),
    limiter,
    cache: new PluginResultCache(redis, config.redisPrefix, logger),
    cacheTtlSeconds: net.pluginCacheTtlSeconds,
    concurrencyFor: (key) => concurrencyFor(net, key),
    timeoutMs: config.pluginTimeoutMs,
    backend: backendClient,
    untrusted: createSafeClient({ allowedHosts: net.ssrfAllowedHosts, maxBytes: net.fetchMaxBytes, timeoutMs: net.fetchTimeoutMs }),
  });
  const files = new SpaceFileRepository(db);
  return {
    steps,
    select: (input, candidates) => classifyPlugins(input, candidates),
    spaceHasFiles: (appId) => files.hasSearchable(appId),
    close: () => limiter.close(),
  };
}
