import type { BenchEnvironment } from './environment';
import type { PluginBackendUrls } from './floor-plugins';
import { startBenchEntry, type Managed } from './processes';

export interface PluginFloorOptions {
  backends: PluginBackendUrls;
  /** web-search's `fetch_pages`: result pages fetched per request (0, the Space's default: none). */
  fetchPages: number;
  /** Writes each process's V8 CPU profiles into `<profileDir>/plugin-floor-<process>` when it exits (one per thread: tsx's loader has its own). */
  profileDir?: string;
  /** More node arguments for both processes (the allocation sampler's, with --allocations). */
  nodeArgs?: string[];
}

/**
 * Starts the plugin floor of `bench:plugins`: the queue floor's API process (tools/bench/queue-floor/api.ts,
 * unchanged) and a worker doing the plugin work Switchyard does (plugin-floor-worker.ts), on the benchmark's
 * Redis (a key prefix of its own) and database (the Space's chunks, and a log table of its own). Returns
 * the processes named `api` and `worker`, as the cells' CPU columns read them, and the API's URL.
 */
export async function startPluginFloor(
  env: BenchEnvironment,
  upstreamBaseUrl: string,
  options: PluginFloorOptions,
): Promise<{ url: string; processes: Managed[] }> {
  const prefix = `${env.redisPrefix}-plugin-floor`;
  const profile = (process: string) => [
    ...(options.profileDir ? ['--cpu-prof', '--cpu-prof-dir', `${options.profileDir}/plugin-floor-${process}`] : []),
    ...(options.nodeArgs ?? []),
  ];
  const argv = [
    env.redisUrl,
    prefix,
    upstreamBaseUrl,
    env.databaseUrl,
    env.appId,
    options.backends.searxng,
    options.backends.embeddings,
    String(options.fetchPages),
  ];
  const worker = await startBenchEntry<{ worker: boolean }>('plugin-floor-worker.ts', argv, profile('worker'));
  try {
    const api = await startBenchEntry<{ url: string }>('queue-floor/api.ts', [env.redisUrl, prefix], profile('api'));
    return {
      url: api.ready.url,
      processes: [
        { ...api, name: 'api' },
        { ...worker, name: 'worker' },
      ],
    };
  } catch (err) {
    await worker.stop();
    throw err;
  }
}
