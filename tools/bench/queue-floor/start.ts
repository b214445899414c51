import type { BenchEnvironment } from '../environment';
import type { PluginBackendUrls } from '../floor-plugins';
import { startBenchEntry, type Managed } from '../processes';

/** The queue floor's two processes (API and worker) and the URL its API listens on. */
export interface QueueFloor {
  url: string;
  processes: Managed[];
}

/**
 * Starts the queue floor (bench/queue-floor): the least a gateway of Switchyard's required shape does
 * for a completion (HTTP in, a BullMQ job, a worker that calls the model and commits a log row, the
 * answer relayed back through Redis), one API and one worker process, on the benchmark's Redis (its
 * own key prefix) and database (its own table), against the same upstream; with `backends`, requests
 * naming `plugins` call the plugin backends first.
 */
export async function startQueueFloor(env: BenchEnvironment, upstreamBaseUrl: string, backends?: PluginBackendUrls): Promise<QueueFloor> {
  const prefix = `${env.redisPrefix}-floor`;
  const plugins = backends ? [backends.searxng, backends.embeddings] : [];
  const worker = await startBenchEntry<{ worker: boolean }>('queue-floor/worker.ts', [env.redisUrl, prefix, upstreamBaseUrl, env.databaseUrl, ...plugins]);
  try {
    const api = await startBenchEntry<{ url: string }>('queue-floor/api.ts', [env.redisUrl, prefix]);
    return { url: api.ready.url, processes: [{ ...api, name: 'floor api' }, { ...worker, name: 'floor worker' }] };
  } catch (err) {
    await worker.stop();
    throw err;
  }
}
