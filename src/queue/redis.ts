import IORedis, { type Redis } from 'ioredis';

/**
 * A connection for BullMQ. Workers block on Redis, so `maxRetriesPerRequest` must be null;
 * producers share the same settings so one factory serves both.
 */
export function createRedis(url: string): Redis {
  return new IORedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}
