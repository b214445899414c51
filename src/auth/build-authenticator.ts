import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';
import type { Config } from '../config/schema';
import { ApiKeyRepository } from '../store/api-keys';
import type { Db } from '../store/db';
import { AuthThrottle } from './auth-throttle';
import { Authenticator } from './authenticator';

/** The authenticator with its failed-attempt throttle, counted in this deployment's Redis. */
export function buildAuthenticator({ config, db, redis, logger }: { config: Readonly<Config>; db: Db; redis: Redis; logger: Logger }): Authenticator {
  const throttle = new AuthThrottle({
    redis,
    prefix: config.redisPrefix,
    addressLimit: config.authThrottleAddressLimit,
    prefixLimit: config.authThrottlePrefixLimit,
    windowSeconds: config.authThrottleWindowSeconds,
    logger,
  });
  return new Authenticator(new ApiKeyRepository(db), { cacheTtlMs: config.authCacheTtlMs, throttle });
}
