import IORedis, { Cluster, type Redis } from 'ioredis';
import { timeCommands } from './command-timeout';

/** One Redis server or a Redis Cluster: the service uses only commands both offer. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: one server's URL, or a cluster's seed nodes (`REDIS_CLUSTER_NODES`). */
export interface RedisLocation {
  url: string;
  clusterNodes: readonly { host: string; port: number }[];
}

export interface RedisOptions {
  /** A CLI command gives up sooner; the service's connections retry for ever (BullMQ's workers require it). */
  maxRetriesPerRequest?: number | null;
  /**
   * ioredis' auto-pipelining: the commands issued in one turn of the event loop go out in one write, and
   * the next batch waits for the previous one's replies. A socket write costs more than the command
   * (64 concurrent PINGs: 27.5 µs of CPU each without it, 14 µs with it, on the 2-vCPU test machine;
   * Redis's CPU per completion in `bench:plugins` fell by a quarter, docs/plugins-benchmark.md), so the
   * service's own commands use it. BullMQ's connection does not: its job-state scripts go as BullMQ sends them.
   */
  autoPipelining?: boolean;
  /**
   * Fails a command that has no answer after this long, in ms, of the process's own time (timeCommands:
   * ioredis' `commandTimeout`, but a held event loop does not count), rather than wait for a Redis that is
   * away: the service's own commands, never BullMQ's blocking ones.
   */
  commandTimeoutMs?: number;
}

/** How often a cluster connection reads the slot map, in ms (ioredis reads it otherwise only on a MOVED or a node error). */
const SLOTS_REFRESH_MS = 2000;

/**
 * A connection to Redis: `maxRetriesPerRequest` is null unless given (workers block on Redis). With
 * cluster nodes, an ioredis Cluster (the password and TLS of `REDIS_URL`, if any, apply to every node).
 */
export function createRedis(
  location: string | RedisLocation,
  { maxRetriesPerRequest = null, autoPipelining = false, commandTimeoutMs }: RedisOptions = {},
): RedisClient {
  const { url, clusterNodes } = typeof location === 'string' ? { url: location, clusterNodes: [] } : location;
  const options = { maxRetriesPerRequest, enableReadyCheck: true, lazyConnect: false };
  const timed = <T extends Redis | Cluster>(client: T): T => (commandTimeoutMs === undefined ? client : timeCommands(client, commandTimeoutMs));
  if (clusterNodes.length === 0) return timed(new IORedis(url, { ...options, enableAutoPipelining: autoPipelining }));
  // Sharded pub/sub for replies (see publishInOrder): its subscriptions follow the slot's node. A
  // connection that only subscribes sends nothing that would tell it of a failover, so every cluster
  // connection reads the slot map every SLOTS_REFRESH_MS: a promoted replica's slots get their
  // subscriptions back within that (one CLUSTER SLOTS per connection per interval).
  return timed(
    new Cluster([...clusterNodes], {
      redisOptions: { ...options, ...clusterNodeOptions(url) },
      enableReadyCheck: true,
      shardedSubscribers: true,
      enableAutoPipelining: autoPipelining,
      slotsRefreshInterval: SLOTS_REFRESH_MS,
    }),
  );
}

/** What every node of a cluster is reached with: the user, password and TLS of `REDIS_URL`, if any. */
export function clusterNodeOptions(url: string): { username?: string; password?: string; tls?: object } {
  const parsed = new URL(url);
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * A separate connection to the same Redis (subscriptions need their own), not connected until first used
 * on one server. Without the command timeout (timeCommands wraps the service's connection alone, not its
 * options, so a duplicate has none): its commands are subscriptions, made once and kept by
 * ioredis across reconnections. A SUBSCRIBE that timed out (a worker starting on a machine so busy that
 * its event loop stalled for seconds) used to fail for good whatever waited on it, every job of a
 * worker whose cancellations were not subscribed included; it now completes once Redis answers.
 */
export function duplicateRedis(client: RedisClient): RedisClient {
  if (client instanceof Cluster) return client.duplicate();
  return client.duplicate({ lazyConnect: true });
}

/**
 * Publishes on a channel whose messages must arrive in order (a request's stream events). On a cluster,
 * PUBLISH goes to any node and messages sent through different nodes can overtake each other on their
 * way to the subscriber's node; SPUBLISH goes to the node owning the channel's slot, so they cannot.
 */
export function publishInOrder(client: RedisClient, channel: string, message: string): Promise<unknown> {
  return client instanceof Cluster ? client.spublish(channel, message) : client.publish(channel, message);
}

/** Subscribes to channels `publishInOrder` writes to; `onMessage` gets each message's text. */
export async function subscribeInOrder(client: RedisClient, channels: readonly string[], onMessage: (message: string) => void): Promise<void> {
  if (client instanceof Cluster) {
    // One SSUBSCRIBE per channel: channels in different slots go to different nodes.
    await Promise.all(channels.map((channel) => client.ssubscribe(channel)));
    client.on('smessage', (_channel: string, message: string) => onMessage(message));
    return;
  }
  await client.subscribe(...channels);
  client.on('message', (_channel: string, message: string) => onMessage(message));
}
