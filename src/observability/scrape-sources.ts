import type { Queue } from 'bullmq';
import { queueLabel } from '../queue/completion-shards';
import type { RedisClient } from '../queue/redis';
import { openBreakersKey } from '../resilience/circuit-breakers';
import type { ScrapeSources } from './metrics';

/** The states a queue's depth is reported in (completed jobs are history, not depth). */
const DEPTH_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed'] as const;

/** Queue depths and open breakers, read from Redis when Prometheus scrapes (a few commands a scrape, none per request). */
export function redisScrapeSources({ queues, redis, prefix }: { queues: Queue[]; redis: RedisClient; prefix: string }): ScrapeSources {
  return {
    queueDepths: async () => {
      // The completion queue's shards are summed: operators watch one completion queue.
      const depths = new Map<string, Record<string, number>>();
      for (const { queue, counts } of await Promise.all(
        queues.map(async (queue) => ({ queue: queueLabel(queue.name), counts: await queue.getJobCounts(...DEPTH_STATES) })),
      )) {
        const sum = depths.get(queue) ?? {};
        for (const [state, n] of Object.entries(counts)) sum[state] = (sum[state] ?? 0) + n;
        depths.set(queue, sum);
      }
      return [...depths].map(([queue, counts]) => ({ queue, counts }));
    },
    openBreakers: async () => {
      const open = await redis.hgetall(openBreakersKey(prefix));
      const now = Date.now();
      const untils = Object.values(open).map(Number);
      return { coolingDown: untils.filter((until) => until > now).length, halfOpen: untils.filter((until) => until <= now).length };
    },
  };
}
