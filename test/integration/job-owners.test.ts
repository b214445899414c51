import { Redis } from 'ioredis';
import pino from 'pino';
import { HEARTBEAT_TTL_MS, JobOwners } from '../../src/resilience/job-owners';
import { TEST_REDIS_URL, uniqueSuffix } from '../helpers/test-database';

const logger = pino({ level: 'silent' });
const queueName = 'completions';
const connections: Redis[] = [];
const prefixes: string[] = [];
const started: JobOwners[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function connect(): Redis {
  const redis = new Redis(TEST_REDIS_URL);
  connections.push(redis);
  return redis;
}

afterAll(async () => {
  for (const owners of started) owners.stop();
  await Promise.all(started.map((owners) => owners.finish()));
  const cleaner = connect();
  for (const prefix of prefixes) {
    const keys = await cleaner.keys(`${prefix}:*`);
    if (keys.length > 0) await cleaner.del(...keys);
  }
  await Promise.all(connections.map((redis) => redis.quit().catch(() => undefined)));
});

/** Waits for a worker's first heartbeat (written as its watch starts, without waiting for Redis). */
async function heartbeatOf(checker: Redis, prefix: string, workerId: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await checker.exists(`${prefix}:${queueName}:heartbeat:${workerId}`)) === 0) {
    if (Date.now() > deadline) throw new Error(`no heartbeat of ${workerId}`);
    await sleep(10);
  }
}

/**
 * A worker (its own connection, heartbeat running) and a second process's watcher, on a fresh prefix.
 * `run` puts a job in the active list with a lock as BullMQ's moveToActive leaves it (`<worker id>:<n>`).
 */
async function twoWorkers() {
  const prefix = `test-owners-${uniqueSuffix()}`;
  prefixes.push(prefix);
  const worker = connect();
  const checker = connect();
  const options = { queues: [{ name: queueName, prefix }], intervalMs: 60_000, logger };
  const owners = new JobOwners({ ...options, redis: worker });
  owners.start({ [queueName]: 'worker-a' });
  started.push(owners);
  const reaper = new JobOwners({ ...options, redis: checker });
  const lockKey = (jobId: string) => `${prefix}:${queueName}:${jobId}:lock`;
  const run = async (jobId: string, token: string) => {
    await checker.lpush(`${prefix}:${queueName}:active`, jobId);
    await checker.set(lockKey(jobId), token, 'PX', 30_000);
  };
  await heartbeatOf(checker, prefix, 'worker-a');
  return { worker, checker, owners, reaper, lockKey, run };
}

describe('JobOwners', () => {
  it('frees the lock of a running job whose worker is gone, once its heartbeat expired', async () => {
    const { worker, checker, owners, reaper, lockKey, run } = await twoWorkers();
    await run('job-1', 'worker-a:0');
    worker.disconnect();
    owners.stop();
    expect(await reaper.reap()).toBe(0);
    await sleep(HEARTBEAT_TTL_MS + 50);
    expect(await reaper.reap()).toBe(1);
    expect(await checker.get(lockKey('job-1'))).toBeNull();
  });

  it('keeps the lock of a live worker whose connection blipped', async () => {
    const { worker, checker, reaper, lockKey, run } = await twoWorkers();
    await run('job-2', 'worker-a:1');
    // The server drops the worker's connection; ioredis reconnects and the heartbeat goes on.
    const id = String(await worker.call('CLIENT', 'ID'));
    await checker.call('CLIENT', 'KILL', 'ID', id);
    expect(await reaper.reap()).toBe(0);
    await sleep(HEARTBEAT_TTL_MS + 250);
    expect(await reaper.reap()).toBe(0);
    expect(await checker.get(lockKey('job-2'))).toBe('worker-a:1');
    expect(worker.status).toBe('ready');
  });

  it('never frees a lock that a live worker took since', async () => {
    const { worker, checker, owners, reaper, lockKey, run } = await twoWorkers();
    await run('job-3', 'worker-a:2');
    worker.disconnect();
    owners.stop();
    await sleep(HEARTBEAT_TTL_MS + 50);
    // The lock lapsed and a live worker took the job before anyone reaped.
    const other = new JobOwners({ queues: [{ name: queueName, prefix: prefixes.at(-1) ?? '' }], intervalMs: 60_000, logger, redis: connect() });
    other.start({ [queueName]: 'worker-b' });
    started.push(other);
    await heartbeatOf(checker, prefixes.at(-1) ?? '', 'worker-b');
    await checker.set(lockKey('job-3'), 'worker-b:0', 'PX', 30_000);
    expect(await reaper.reap()).toBe(0);
    expect(await checker.get(lockKey('job-3'))).toBe('worker-b:0');
  });

  it('never frees its own worker’s locks, even when its heartbeat lapsed (a stalled event loop)', async () => {
    const { checker, owners, reaper, lockKey, run } = await twoWorkers();
    await run('job-5', 'worker-a:5');
    await owners.finish();
    expect(await owners.reap()).toBe(0);
    expect(await checker.get(lockKey('job-5'))).toBe('worker-a:5');
    expect(await reaper.reap()).toBe(1);
  });

  it('leaves alone an active job without a lock (BullMQ’s stalled check handles it)', async () => {
    const { checker, reaper, lockKey } = await twoWorkers();
    await checker.lpush(`${prefixes.at(-1)}:${queueName}:active`, 'job-4');
    expect(await reaper.reap()).toBe(0);
    expect(await checker.get(lockKey('job-4'))).toBeNull();
  });

  it("watches several queues in one: every heartbeat of the process renewed, a dead worker's jobs freed on each queue in one reap", async () => {
    const prefix = `test-owners-${uniqueSuffix()}`;
    prefixes.push(prefix);
    const queues = ['completions', 'batch-lines'];
    const worker = connect();
    const checker = connect();
    const options = { queues: queues.map((name) => ({ name, prefix })), intervalMs: 60_000, logger };
    const owners = new JobOwners({ ...options, redis: worker });
    owners.start({ completions: 'worker-c1', 'batch-lines': 'worker-l1' });
    started.push(owners);
    const reaper = new JobOwners({ ...options, redis: checker });
    for (const [queue, workerId] of [
      ['completions', 'worker-c1'],
      ['batch-lines', 'worker-l1'],
    ] as const) {
      const deadline = Date.now() + 10_000;
      while ((await checker.exists(`${prefix}:${queue}:heartbeat:${workerId}`)) === 0) {
        if (Date.now() > deadline) throw new Error(`no heartbeat of ${workerId}`);
        await sleep(10);
      }
      await checker.lpush(`${prefix}:${queue}:active`, `job-${queue}`);
      await checker.set(`${prefix}:${queue}:job-${queue}:lock`, `${workerId}:0`, 'PX', 30_000);
    }
    // Past several renewals, both heartbeats are still there: the one timer renews them all.
    await sleep(HEARTBEAT_TTL_MS + 250);
    expect(await reaper.reap()).toBe(0);
    worker.disconnect();
    owners.stop();
    await sleep(HEARTBEAT_TTL_MS + 50);
    expect(await reaper.reap()).toBe(2);
    for (const queue of queues) expect(await checker.get(`${prefix}:${queue}:job-${queue}:lock`)).toBeNull();
  });
});
