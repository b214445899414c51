import { concurrencyFor } from '../src/config/plugins/net';
import { backendClient } from '../src/net/backend-client';
import { createSafeClient } from '../src/net/safe-fetch';
import type { PluginSelector } from '../src/pipeline/plugin-plan';
import { PluginSteps } from '../src/pipeline/plugin-steps';
import { BackendLimiter } from '../src/plugins/backend-limits';
import { createImageGenerationPlugin } from '../src/plugins/image-generation-generic';
import { PluginResultCache } from '../src/plugins/result-cache';
import { classifyPlugins } from '../src/plugins/selection';
import { createSocialPostPlugin } from '../src/plugins/social-post';
import { createLegacyFileSearchPlugin, createSpaceFileReader, createSpaceSearchPlugin } from '../src/plugins/space-search';
import { createTranscribeAudioPlugin } from '../src/plugins/transcribe-audio';
import type { Plugin, PluginId } from '../src/plugins/types';
import { createWebSearchPlugin } from '../src/plugins/web-search';
import type { WorkerServices } from './worker-services';
import { SpaceFileRepository } from '../src/store/space-files';

/** The plugins, their shared limits and cache, built once per worker process. */
export interface WorkerPlugins {
  steps: PluginSteps;
  select: PluginSelector;
  spaceHasFiles(appId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Every plugin of the contract's table, built from the service configuration (each says itself whether it can run). */
function pluginSet(services: WorkerServices): Map<PluginId, Plugin> {
  const { config, db } = services;
  const { webSearch, spaceSearch, media, socialPost } = config.plugins;
  return new Map<PluginId, Plugin>([
    ['web-search', createWebSearchPlugin(webSearch)],
    ['space-search', createSpaceSearchPlugin(spaceSearch, { db })],
    ['legacy-file-search', createLegacyFileSearchPlugin(spaceSearch, { db })],
    ['image-generation-generic', createImageGenerationPlugin(media.images)],
    ['transcribe-audio', createTranscribeAudioPlugin(media.transcribe, { spaceFiles: createSpaceFileReader({ db }) })],
    ['social-post', createSocialPostPlugin(socialPost, { db })],
  ]);
}

export function workerPlugins(services: WorkerServices): WorkerPlugins {
  const { config, redis, logger, db } = services;
  const { net } = config.plugins;
  const limiter = new BackendLimiter(redis, config.redisPrefix, logger);
  const steps = new PluginSteps({
    plugins: pluginSet(services),
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
