import { randomUUID } from 'node:crypto';
import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';
import { completionShardCount } from '../config/redis-cluster';
import { completionShards } from '../queue/completion-shards';
import { KeySpace } from '../queue/key-space';
import type { Config } from '../config/schema';
import { createQueues, type Queues } from '../queue/queues';
import { createRedis, duplicateRedis } from '../queue/redis';
import { createDb, type Db } from '../store/db';
import { metrics } from '../observability/metrics';
import { redisScrapeSources } from '../observability/scrape-sources';

/** The connections every part of a process is built from (src/app/ alone names this type; lower rooms take what they use). */
export interface Infrastructure {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  /** Where the keys live: the deployment's prefix, a Space's, the completion shards'. */
  keySpace: KeySpace;
  /** The service's own commands (auto-pipelined). */
  redis: Redis;
  /** BullMQ's connection: the queues' and the workers' (not auto-pipelined). */
  queueConnection: Redis;
  queues: Queues;
  /** Identifies this process, e.g. in the name of its reply channel. */
  instanceId: string;
  /** A separate connection (for subscriptions), closed with the rest. */
  dedicatedRedis(): Redis;
}

export interface OwnedInfrastructure extends Infrastructure {
  close(): Promise<void>;
}

/**
 * How long the service's own Redis commands wait for an answer, in ms of the process's own time (a held
 * event loop does not count: queue/command-timeout.ts): each is a millisecond's work (docs/decisions.md,
 * "The service's waits on its dependencies count its own time").
 */
const SERVICE_COMMAND_TIMEOUT_MS = 3000;

/** Connects to PostgreSQL and Redis and opens the queues. */
export function connectInfrastructure(given: Readonly<Config>, logger: Logger): OwnedInfrastructure {
  const keys = new KeySpace(given.redisPrefix, given.redisClusterNodes.length > 0);
  // `redisPrefix` is the deployment's own prefix from here on: hash-tagged on a cluster (KeySpace).
  const config = Object.freeze({ ...given, redisPrefix: keys.prefix });
  const db = createDb(config.databaseUrl, config.databasePoolSize);
  const location = { url: config.redisUrl, clusterNodes: config.redisClusterNodes };
  // A command of ours waits at most this long for a Redis that is away (a failover): the request then answers 503.
  const redis = createRedis(location, { autoPipelining: true, commandTimeoutMs: SERVICE_COMMAND_TIMEOUT_MS });
  const queueConnection = createRedis(location);
  for (const connection of [redis, queueConnection]) connection.on('error', (err) => logger.warn({ err }, 'redis connection error'));
  const queues = createQueues(queueConnection, config.redisPrefix, { shards: completionShards(keys, completionShardCount(config)) });
  const extraConnections: Redis[] = [];
  for (const queue of queues.all()) queue.on('error', (err) => logger.warn({ err, queue: queue.name }, 'queue connection error'));
  const unwatch = metrics().watch(redisScrapeSources({ queues: queues.all(), redis, prefix: config.redisPrefix }));
  return {
    config,
    logger,
    db,
    keySpace: keys,
    redis,
    queueConnection,
    queues,
    instanceId: randomUUID(),
    dedicatedRedis: () => {
      const connection = duplicateRedis(redis);
      connection.on('error', (err) => logger.warn({ err }, 'redis connection error'));
      extraConnections.push(connection);
      return connection;
    },
    close: async () => {
      unwatch();
      await queues.close();
      extraConnections.forEach((connection) => connection.disconnect());
      redis.disconnect();
      queueConnection.disconnect();
      await db.$disconnect();
    },
  };
}
