import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config/schema';
import { createQueues } from './queue/queues';
import { createRedis } from './queue/redis';
import type { Infrastructure } from './services/container';
import { createDb } from './store/db';

export interface OwnedInfrastructure extends Infrastructure {
  close(): Promise<void>;
}

/** Connects to PostgreSQL and Redis and opens the queues. */
export function connectInfrastructure(config: Readonly<Config>, logger: Logger): OwnedInfrastructure {
  const db = createDb(config.databaseUrl);
  const redis = createRedis(config.redisUrl);
  redis.on('error', (err) => logger.warn({ err }, 'redis connection error'));
  const queues = createQueues(redis, config.redisPrefix);
  const extraConnections: Redis[] = [];
  for (const queue of queues.all()) queue.on('error', (err) => logger.warn({ err, queue: queue.name }, 'queue connection error'));
  return {
    config,
    logger,
    db,
    redis,
    queues,
    instanceId: randomUUID(),
    dedicatedRedis: () => {
      const connection = redis.duplicate({ lazyConnect: true });
      connection.on('error', (err) => logger.warn({ err }, 'redis connection error'));
      extraConnections.push(connection);
      return connection;
    },
    close: async () => {
      await queues.close();
      extraConnections.forEach((connection) => connection.disconnect());
      redis.disconnect();
      await db.$disconnect();
    },
  };
}
