import { z } from 'zod';

/**
 * `REDIS_CLUSTER_NODES`: seed nodes of a Redis Cluster as `host:port,host:port,…` (any reachable
 * subset; the client learns the rest). Empty: one Redis server at `REDIS_URL`.
 */
export const redisClusterNodesSchema = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (!value) return [];
    return value.split(',').map((entry) => {
      const match = /^\s*([^\s:]+|\[[^\]]+\]):(\d{1,5})\s*$/.exec(entry);
      const port = Number(match?.[2]);
      if (!match?.[1] || !(port > 0 && port < 65536)) {
        ctx.addIssue({ code: 'custom', message: `"${entry}" is not host:port` });
        return { host: '', port: 0 };
      }
      return { host: match[1].replace(/^\[|\]$/g, ''), port };
    });
  });

/** Completion queue shards on a cluster by default: two per master of a 3-master cluster. */
export const CLUSTER_DEFAULT_SHARDS = 6;

/** The completion queue's shard count: as configured, else one on one Redis server and 6 on a cluster. */
export function completionShardCount(config: { completionQueueShards?: number | undefined; redisClusterNodes: readonly unknown[] }): number {
  return config.completionQueueShards ?? (config.redisClusterNodes.length > 0 ? CLUSTER_DEFAULT_SHARDS : 1);
}
