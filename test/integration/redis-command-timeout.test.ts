import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { CommandTimeoutError } from '../../src/queue/command-timeout';
import { isRedisUnavailable } from '../../src/queue/redis-errors';
import { createRedis, duplicateRedis, type RedisClient } from '../../src/queue/redis';
import { TEST_REDIS_URL } from '../helpers/test-database';

/**
 * The service's own Redis commands fail after their timeout when Redis does not answer (503 upstream of
 * here), but a command Redis answered while this process's event loop was held is read, not failed: the
 * timeout counts the process's own time (src/domain/loop-timer.ts).
 */
const TIMEOUT_MS = 40;

function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy: a long synchronous task, or a garbage collection.
  }
}

const location = (url: string) => ({ url, clusterNodes: [] });
const clients: RedisClient[] = [];
const connected = (url: string): RedisClient => {
  const client = createRedis(location(url), { commandTimeoutMs: TIMEOUT_MS, maxRetriesPerRequest: null });
  client.on('error', () => undefined);
  clients.push(client);
  return client;
};

/** The answer to the connection's ready check (INFO); the only one the frozen Redis gives. */
const INFO = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';

/** A Redis that answers the connection's ready check, then nothing: frozen, as a master failing over. */
let silent: Server;
const sockets: Socket[] = [];
beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.push(socket);
    socket.on('data', (data) => {
      if (data.toString('utf8').toLowerCase().includes('info')) socket.write(`$${Buffer.byteLength(INFO)}\r\n${INFO}\r\n`);
    });
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  clients.forEach((client) => client.disconnect());
  sockets.forEach((socket) => socket.destroy());
  await new Promise((resolve) => silent.close(resolve));
});

describe('a service command', () => {
  it('fails with "Command timed out" and its wait, read as Redis away, when Redis does not answer', async () => {
    const frozen = connected(`redis://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    const err = await frozen.ping().then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(err).toBeInstanceOf(CommandTimeoutError);
    expect(err).toMatchObject({ message: 'Command timed out', timeoutMs: TIMEOUT_MS });
    expect(isRedisUnavailable(err)).toBe(true);
  });

  it('is answered, not timed out, when the loop was held past the timeout while Redis answered', async () => {
    const redis = connected(TEST_REDIS_URL);
    expect(await redis.ping()).toBe('PONG');
    const pong = redis.ping();
    // The command goes out at the end of this turn (auto-pipelining or not); the loop is then held.
    setImmediate(() => holdLoop(4 * TIMEOUT_MS));
    await expect(pong).resolves.toBe('PONG');
  });

  it('has no timeout on a duplicate (a subscription waits for Redis however long it takes)', async () => {
    const frozen = connected(`redis://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    const duplicate = duplicateRedis(frozen);
    duplicate.on('error', () => undefined);
    clients.push(duplicate);
    let settled = false;
    duplicate.ping().then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 5 * TIMEOUT_MS));
    expect(settled).toBe(false);
  });
});
