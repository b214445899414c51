import { startRedisCluster } from '../../test/helpers/redis-cluster';
import { privateRedis } from './private-redis';

/**
 * `--redis`: which Redis Switchyard runs on. `shared`: the test Redis (TEST_REDIS_URL, 127.0.0.1:6379),
 * as before; other sessions' commands land in its counts too. `own`: a throwaway redis-server of the run's
 * own, for every path, so its command counts are the run's alone. `cluster`: a throwaway three-master
 * Redis Cluster (test/helpers/redis-cluster.ts) for Switchyard and the baseline (REDIS_CLUSTER_NODES);
 * the floors, which speak to one server only, stay on the shared Redis.
 */
export type RedisKind = 'shared' | 'own' | 'cluster';

/** `--redis shared|own|cluster`; the older `--redis-cluster` means `cluster`. */
export function redisKindOf(option: string | undefined, legacyCluster: boolean): RedisKind {
  if (legacyCluster) return 'cluster';
  const kind = option ?? 'shared';
  if (kind === 'shared' || kind === 'own' || kind === 'cluster') return kind;
  throw new Error(`--redis: unknown kind ${kind} (shared, own or cluster)`);
}

/** The Redis of a run, and where each path's commands land. */
export interface BenchRedis {
  kind: RedisKind;
  /** One server's URL: the floors', and Switchyard's on one server (REDIS_URL). */
  url: string;
  /** What Switchyard's processes are given besides REDIS_URL (REDIS_CLUSTER_NODES on a cluster). */
  serviceEnv: Record<string, string>;
  /** The servers Switchyard's commands land on (`redis://host:port`): the one server, or each master of the cluster. */
  serviceNodes: string[];
  stop(): Promise<void>;
}

/** Starts what `kind` needs; `sharedUrl` is the test Redis. */
export async function startBenchRedis(kind: RedisKind, sharedUrl: string): Promise<BenchRedis> {
  if (kind === 'shared') return { kind, url: sharedUrl, serviceEnv: {}, serviceNodes: [sharedUrl], stop: async () => undefined };
  if (kind === 'own') {
    const own = await privateRedis();
    return { kind, url: own.url, serviceEnv: {}, serviceNodes: [own.url], stop: async () => own.stop() };
  }
  const cluster = await startRedisCluster();
  return {
    kind,
    url: sharedUrl,
    serviceEnv: { REDIS_CLUSTER_NODES: cluster.nodesEnv },
    serviceNodes: cluster.nodes.map((node) => `redis://${node.host}:${node.port}`),
    stop: () => cluster.stop(),
  };
}
