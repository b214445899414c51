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

/**
 * The key prefix as used: on a cluster, wrapped in a hash tag (`{switchyard}`) unless it has one, so
 * every key of the deployment (BullMQ's queues, and each multi-key script of ours) lands in one slot.
 */
export function effectivePrefix(prefix: string, clustered: boolean): string {
  return clustered && !/\{[^}]+\}/.test(prefix) ? `{${prefix}}` : prefix;
}
