import type { BenchEnvironment } from '../environment';
import type { PluginBackendUrls } from '../floor-plugins';
import { startBenchEntry, type Managed } from '../processes';

/** The HTTP edge of a floor's API process: bare node:http (the queue floor) or Express 5 (the Express floor). */
export type FloorEdge = 'node' | 'express';

/** A floor's two processes (API and worker) and the URL its API listens on. */
export interface QueueFloor {
  edge: FloorEdge;
  url: string;
  processes: Managed[];
}

export interface FloorOptions {
  edge?: FloorEdge;
  /** Requests naming `plugins` call these backends first (bench:plugins). */
  backends?: PluginBackendUrls;
  /** Writes each process's V8 CPU profile into this folder (one subfolder per process) when it exits. */
  profileDir?: string;
}

const ENTRIES: Record<FloorEdge, { api: string; name: string }> = {
  node: { api: 'queue-floor/api.ts', name: 'floor' },
  express: { api: 'queue-floor/express-api.ts', name: 'express floor' },
};

/**
 * Starts a floor (tools/bench/queue-floor): the least a gateway of Switchyard's required shape does for
 * a completion (HTTP in, a BullMQ job, a worker that calls the model and commits a log row, the answer
 * relayed back through Redis), one API and one worker process, on the benchmark's Redis (a key prefix
 * of its own) and database (its own table), against the same upstream. `edge` picks the API's HTTP
 * server; with `backends`, requests naming `plugins` call the plugin backends first.
 */
export async function startQueueFloor(env: BenchEnvironment, upstreamBaseUrl: string, options: FloorOptions = {}): Promise<QueueFloor> {
  const edge = options.edge ?? 'node';
  const { api: apiEntry, name } = ENTRIES[edge];
  const prefix = `${env.redisPrefix}-${edge === 'node' ? 'floor' : 'express-floor'}`;
  const plugins = options.backends ? [options.backends.searxng, options.backends.embeddings] : [];
  const profile = (process: string) => (options.profileDir ? ['--cpu-prof', '--cpu-prof-dir', `${options.profileDir}/${name.replace(' ', '-')}-${process}`] : []);
  const worker = await startBenchEntry<{ worker: boolean }>('queue-floor/worker.ts', [env.redisUrl, prefix, upstreamBaseUrl, env.databaseUrl, ...plugins], profile('worker'));
  try {
    const api = await startBenchEntry<{ url: string }>(apiEntry, [env.redisUrl, prefix], profile('api'));
    return { edge, url: api.ready.url, processes: [{ ...api, name: `${name} api` }, { ...worker, name: `${name} worker` }] };
  } catch (err) {
    await worker.stop();
    throw err;
  }
}
