import { createHash } from 'node:crypto';
import type { BenchEnvironment } from '../environment';
import type { PluginBackendUrls } from '../floor-plugins';
import { startBenchEntry, type Managed } from '../processes';

/**
 * Which floor: the queue floor (bare node:http), the Express floor (its edge on Express 5), the
 * required-work floor (the Express floor doing also what issue 20's configuration and the fault suite
 * make every implementation do: see worker.ts), or the configured floor (the required floor doing also
 * the rest of issue 20's configuration, each part the leanest way: configured-edge.ts, configured-work.ts,
 * and issue 22's run-once claim before the upstream call: claims.ts).
 */
export type FloorKind = 'queue' | 'express' | 'required' | 'configured';

/** What a floor's worker does per job: the least (one row, the upstream asked as the client asked), the required work, or all the configuration asks. */
export type FloorWork = 'least' | 'required' | 'configured';

/** A floor's two processes (API and worker) and the URL its API listens on. */
export interface QueueFloor {
  kind: FloorKind;
  url: string;
  processes: Managed[];
}

export interface FloorOptions {
  kind?: FloorKind;
  /** Requests naming `plugins` call these backends first (bench:plugins). */
  backends?: PluginBackendUrls;
  /** Writes each process's V8 CPU profile into this folder (one subfolder per process) when it exits. */
  profileDir?: string;
  /** More node arguments for both processes (the allocation sampler's, with --allocations). */
  nodeArgs?: string[];
}

const ENTRIES: Record<FloorKind, { api: string; name: string; work: FloorWork }> = {
  queue: { api: 'queue-floor/api.ts', name: 'floor', work: 'least' },
  express: { api: 'queue-floor/express-api.ts', name: 'express floor', work: 'least' },
  // Its API admits each request first (the Space's stamp and the rate limit in one script): reply-relay.ts.
  required: { api: 'queue-floor/express-api.ts', name: 'required floor', work: 'required' },
  // Its API also checks the key, validates the request and keeps the HTTP metrics (configured-edge.ts); its worker also claims each run (claims.ts).
  configured: { api: 'queue-floor/express-api.ts', name: 'configured floor', work: 'configured' },
};

/**
 * Starts a floor (tools/bench/queue-floor): the least a gateway of Switchyard's required shape does for
 * a completion (HTTP in, a BullMQ job, a worker that calls the model and commits a log row, the answer
 * relayed back through Redis), one API and one worker process, on the benchmark's Redis (a key prefix
 * of its own) and database (its own table), against the same upstream. `kind` picks the floor; with
 * `backends`, requests naming `plugins` call the plugin backends first.
 */
export async function startQueueFloor(env: BenchEnvironment, upstreamBaseUrl: string, options: FloorOptions = {}): Promise<QueueFloor> {
  const kind = options.kind ?? 'queue';
  const { api: apiEntry, name, work } = ENTRIES[kind];
  // `floor`, `express-floor`, `required-floor`, `configured-floor`: its Redis prefix's suffix and its profiles' folder.
  const slug = name.replaceAll(' ', '-');
  const prefix = `${env.redisPrefix}-${slug}`;
  const plugins = options.backends ? [options.backends.searxng, options.backends.embeddings] : [];
  const profile = (process: string) => [
    ...(options.profileDir ? ['--cpu-prof', '--cpu-prof-dir', `${options.profileDir}/${slug}-${process}`] : []),
    ...(options.nodeArgs ?? []),
  ];
  const worker = await startBenchEntry<{ worker: boolean }>(
    'queue-floor/worker.ts',
    [env.redisUrl, prefix, upstreamBaseUrl, env.databaseUrl, work, ...plugins],
    profile('worker'),
  );
  try {
    const admission = work === 'required' ? ['admit'] : work === 'configured' ? ['configure', createHash('sha256').update(env.apiKey).digest('hex')] : [];
    const api = await startBenchEntry<{ url: string }>(apiEntry, [env.redisUrl, prefix, ...admission], profile('api'));
    return {
      kind,
      url: api.ready.url,
      processes: [
        { ...api, name: `${name} api` },
        { ...worker, name: `${name} worker` },
      ],
    };
  } catch (err) {
    await worker.stop();
    throw err;
  }
}
