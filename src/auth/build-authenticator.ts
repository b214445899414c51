import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';
import type { Config } from '../config/schema';
import { ApiKeyRepository } from '../store/api-keys';
import type { Db } from '../store/db';
import { AuthThrottle } from './auth-throttle';
import { Authenticator } from './authenticator';
import { KeyRevocations } from './key-revocations';

interface AuthenticatorInfrastructure {
  config: Readonly<Config>;
  db: Db;
  redis: Redis;
  logger: Logger;
  /** A separate connection, for the subscription to revoked keys. */
  dedicatedRedis(): Redis;
}

/** The authenticator with its failed-attempt throttle, counted in this deployment's Redis, and its cache told of revoked keys. */
export function buildAuthenticator({ config, db, redis, logger, dedicatedRedis }: AuthenticatorInfrastructure): Authenticator {
  const throttle = new AuthThrottle({
    redis,
    prefix: config.redisPrefix,
    addressLimit: config.authThrottleAddressLimit,
    prefixLimit: config.authThrottlePrefixLimit,
    windowSeconds: config.authThrottleWindowSeconds,
    logger,
  });
  const revocations = new KeyRevocations(redis, config.redisPrefix);
  return new Authenticator(new ApiKeyRepository(db), {
    cacheTtlMs: config.authCacheTtlMs,
    throttle,
    listenForRevocations: (forget) =>
      revocations.listen(dedicatedRedis(), forget).catch((err: unknown) => {
        logger.warn({ err }, 'revoked keys not listened to: a revoked key stays cached until AUTH_CACHE_TTL_MS');
        throw err;
      }),
  });
}
