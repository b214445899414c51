import IORedis, { Cluster } from 'ioredis';
import { clusterNodeOptions, type RedisLocation } from './redis';

/** How long one attempt waits for Redis to accept the connection, in ms. */
const CONNECT_TIMEOUT_MS = 5000;

interface RedisFailure {
  code?: string;
  message?: string;
}

function placeOf(location: RedisLocation): string {
  if (location.clusterNodes.length > 0) return `the cluster at ${location.clusterNodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  const url = new URL(location.url);
  return `Redis at ${url.hostname}:${url.port || '6379'}`;
}

function problemOf(err: RedisFailure, location: RedisLocation): string {
  const place = placeOf(location);
  const setting = location.clusterNodes.length > 0 ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL';
  const message = err.message ?? '';
  if (err.code === 'ECONNREFUSED' || message.includes('ECONNREFUSED')) return `${place} refused the connection: start Redis, or set ${setting}`;
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return `${place} was not found: set ${setting}`;
  if (/NOAUTH|WRONGPASS|invalid password/i.test(message)) return `${place} refused the password in REDIS_URL: set REDIS_URL`;
  return `${place} could not be reached (${message || err.code || 'unknown error'}): check ${setting}`;
}

/**
 * One look at Redis (or a cluster) with a connection that does not retry: returns null when it answers
 * PING, else one sentence naming the cause and the fix.
 */
export async function redisProblem(location: RedisLocation): Promise<string | null> {
  const options = { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: CONNECT_TIMEOUT_MS, retryStrategy: () => null };
  const client =
    location.clusterNodes.length > 0
      ? new Cluster([...location.clusterNodes], {
          lazyConnect: true,
          enableOfflineQueue: false,
          clusterRetryStrategy: () => null,
          redisOptions: { ...options, ...clusterNodeOptions(location.url) },
        })
      : new IORedis(location.url, options);
  // connect() rejects with "Connection is closed."; the socket's own error (ECONNREFUSED, ...) comes as an event.
  let socketError: RedisFailure | null = null;
  client.on('error', (err: RedisFailure) => (socketError ??= err));
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (err) {
    return problemOf(socketError ?? (err as RedisFailure), location);
  } finally {
    client.disconnect();
  }
}
