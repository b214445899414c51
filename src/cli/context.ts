import { KeySpace } from '../queue/key-space';
import { createRedis, type RedisClient } from '../queue/redis';
import { SpaceVersions } from '../cache/space-versions';
import { KeyRevocations } from '../auth/key-revocations';
import { loadConfig } from '../config/load';
import type { Config } from '../config/schema';
import { createDb, type Db } from '../store/db';

/** Where a command writes: stdout carries only the result, stderr everything else. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

/** One command runs at a time, so a couple of connections is plenty. */
const CLI_DB_CONNECTIONS = 2;

/** A command waits this long for an unreachable Redis instead of retrying forever as the service does. */
const CLI_REDIS_RETRIES = 2;

/**
 * Reads the configuration and opens the database (and Redis) on first use, so `--help` and usage errors
 * never connect.
 */
export class CliSession {
  private loaded: Readonly<Config> | null = null;
  private database: Db | null = null;
  private redis: RedisClient | null = null;

  constructor(private readonly readConfig: () => Readonly<Config> = loadConfig) {}

  private loadedConfig(): Readonly<Config> {
    this.loaded ??= this.readConfig();
    return this.loaded;
  }

  /** The configuration, read on first use (commands that build services need more than the database). */
  config(): Readonly<Config> {
    return this.loadedConfig();
  }

  db(): Db {
    this.database ??= createDb(this.loadedConfig().databaseUrl, CLI_DB_CONNECTIONS);
    return this.database;
  }

  /**
   * The Space version stamps the running API and worker processes share (REDIS_URL, REDIS_PREFIX): a command
   * that changes a Space's configuration bumps its stamp after the commit, so their caches reload it.
   */
  spaceVersions(): SpaceVersions {
    return new SpaceVersions(this.redisClient(), this.keySpace());
  }

  /** Tells the running API processes that keys were revoked, so their authentication caches drop them at once. */
  keyRevocations(): KeyRevocations {
    return new KeyRevocations(this.redisClient(), this.keySpace().prefix);
  }

  private redisClient(): RedisClient {
    const config = this.loadedConfig();
    this.redis ??= createRedis({ url: config.redisUrl, clusterNodes: config.redisClusterNodes }, { maxRetriesPerRequest: CLI_REDIS_RETRIES });
    return this.redis;
  }

  private keySpace(): KeySpace {
    const config = this.loadedConfig();
    return new KeySpace(config.redisPrefix, config.redisClusterNodes.length > 0);
  }

  /** Whether failures should carry their stack trace (`LOG_LEVEL=debug` or `trace`). */
  get verbose(): boolean {
    return this.loaded?.logLevel === 'debug' || this.loaded?.logLevel === 'trace';
  }

  /** Lets the process exit: an open pool or Redis connection would keep it alive. */
  async close(): Promise<void> {
    const database = this.database;
    const redis = this.redis;
    this.database = null;
    this.redis = null;
    redis?.disconnect();
    await database?.$disconnect();
  }
}

export interface CliContext {
  session: CliSession;
  io: CliOutput;
  /** Ends commands that run until stopped (`logs tail --follow`): SIGINT in a terminal, the test in tests. */
  signal?: AbortSignal;
}
