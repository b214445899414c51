import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startRedisCluster, type LocalRedisCluster } from '../../../test/helpers/redis-cluster';
import { Cleanups } from './cleanup';
import { ClusterProbe } from './cluster-probe';
import type { FaultContext } from './fault';
import type { LogLine } from './process-logs';
import { ServiceProcesses } from './service';
import { Stack } from './stack';

/**
 * `cluster-node-timeout`, in ms: how long a master may be unreachable before its replica takes over. Redis's
 * default (15 s) would make the outage, and the row, mostly waiting; below about 2 s a 2-core machine at load
 * (6 redis-servers, 4 service processes, the suite) can miss pings for that long and fail over a live master.
 */
export const NODE_TIMEOUT_MS = 3000;

/** The Redis Cluster row's own world: 3 masters with a replica each, and 2 API and 2 worker processes on them. */
export interface ClusterStack {
  cluster: LocalRedisCluster;
  stack: Stack;
  probe: ClusterProbe;
  /** Stops every process, the cluster's nodes, and removes the row's folder; safe to call twice. */
  teardown(): Promise<void>;
}

/**
 * Starts the cluster and the service on it (`REDIS_CLUSTER_NODES`; `REDIS_URL` stays set, as a deployment
 * keeps it for credentials), the batch files in a folder every process shares. Each piece is registered with
 * the run's cleanups as soon as it exists, so a failure or Ctrl-C at any point leaves nothing behind.
 */
export async function startClusterStack(ctx: FaultContext): Promise<ClusterStack> {
  const own = new Cleanups(ctx.say);
  ctx.cleanup('Redis Cluster row', () => own.runAll());
  const dir = path.join(ctx.scratch, 'cluster-failover');
  mkdirSync(path.join(dir, 'files'), { recursive: true });
  own.push('cluster row folder', async () => rmSync(dir, { recursive: true, force: true }));
  try {
    const cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: NODE_TIMEOUT_MS });
    own.push('Redis Cluster nodes', () => cluster.stop());
    const probe = new ClusterProbe(cluster.nodes);
    own.push('cluster probe', async () => probe.close());
    await probe.connect();
    const env = {
      ...Stack.environmentFor(ctx.env, ctx.upstream),
      REDIS_CLUSTER_NODES: cluster.nodesEnv,
      FILE_STORAGE: 'local',
      FILE_STORAGE_DIR: path.join(dir, 'files'),
    };
    const stack = new Stack(new ServiceProcesses({ command: ctx.command, env, logDir: dir }));
    own.push('cluster row service processes', () => stack.stop());
    await stack.start();
    return { cluster, stack, probe, teardown: () => own.runAll() };
  } catch (err) {
    await own.runAll();
    throw err;
  }
}

const textOf = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** Lines of the stack's process logs that record a log row inserted twice (a job run twice to its end). */
export function duplicateLogInserts(stack: Stack): number {
  return [...stack.apis, ...stack.workers].reduce(
    (sum, proc) =>
      sum +
      textOf(proc.logFile)
        .split('\n')
        .filter((line) => /P2002|Unique constraint failed|duplicate key value/.test(line)).length,
    0,
  );
}

/**
 * The errors (and warnings) the stack's processes logged since `since` (epoch ms), the most frequent first,
 * as `<role>: <msg>: <error message>` × count: what the service itself saw of the failover, for the notes.
 */
export function loggedProblemsSince(stack: Stack, since: number, limit = 6): string[] {
  const counts = new Map<string, number>();
  for (const proc of [...stack.apis, ...stack.workers]) {
    for (const raw of textOf(proc.logFile).split('\n')) {
      if (!raw.startsWith('{')) continue;
      let line: LogLine;
      try {
        line = JSON.parse(raw) as LogLine;
      } catch {
        continue;
      }
      const time = typeof line.time === 'number' ? line.time : Date.parse(line.time ?? '');
      if ((line.level ?? 0) < 40 || !(time >= since)) continue;
      const key = `${proc.role}: ${line.msg ?? ''}${line.err?.message ? `: ${line.err.message.replace(/\s+/g, ' ').slice(0, 120)}` : ''}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([text, n]) => `${n}× ${text}`);
}
