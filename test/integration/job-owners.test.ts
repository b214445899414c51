import { Redis } from 'ioredis';
import pino from 'pino';
import { HEARTBEAT_TTL_MS, JobOwners } from '../../src/resilience/job-owners';
import { eventually } from '../helpers/completion-fixtures';
import { TEST_REDIS_URL, uniqueSuffix } from '../helpers/test-database';

const logger = pino({ level: 'silent' });
const queueName = 'completions';
const connections: Redis[] = [];
const keys: string[] = [];
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
  if (keys.length > 0) await cleaner.del(...keys);
  await Promise.all(connections.map((redis) => redis.quit().catch(() => undefined)));
});

/** A worker (its own connection) and a second one that checks for dead owners, on a fresh prefix. */
async function twoWorkers() {
  const prefix = `test-owners-${uniqueSuffix()}`;
  const worker = connect();
  const checker = connect();
  const options = { prefix, queueName, intervalMs: 60_000, logger };
  const owners = new JobOwners({ ...options, redis: worker });
  owners.start();
  started.push(owners);
  const reaper = new JobOwners({ ...options, redis: checker });
  const lockKey = (jobId: string) => `${prefix}:${queueName}:${jobId}:lock`;
  const ownersKey = `${prefix}:${queueName}:owners`;
  keys.push(ownersKey, lockKey('job-1'), lockKey('job-2'), lockKey('job-3'));
  const claimed = (jobId: string) => eventually(async () => (await checker.hget(ownersKey, jobId)) ?? null);
  return { worker, checker, owners, reaper, lockKey, ownersKey, claimed };
}

describe('JobOwners', () => {
  it('frees the lock of a job whose worker is gone, once its heartbeat expired', async () => {
    const { worker, checker, owners, reaper, lockKey, claimed } = await twoWorkers();
    await checker.set(lockKey('job-1'), 'token-1', 'PX', 30_000);
    owners.claim('job-1', 'token-1');
    await claimed('job-1');
    worker.disconnect();
    owners.stop();
    expect(await reaper.reap()).toBe(0);
    await sleep(HEARTBEAT_TTL_MS + 50);
    expect(await reaper.reap()).toBe(1);
    expect(await checker.get(lockKey('job-1'))).toBeNull();
  });

  it('keeps the lock of a live worker whose connection blipped', async () => {
    const { worker, checker, owners, reaper, lockKey, ownersKey, claimed } = await twoWorkers();
    await checker.set(lockKey('job-2'), 'token-2', 'PX', 30_000);
    owners.claim('job-2', 'token-2');
    const before = await claimed('job-2');
    // The server drops the worker's connection; ioredis reconnects and the heartbeat goes on.
    const id = String(await worker.call('CLIENT', 'ID'));
    await checker.call('CLIENT', 'KILL', 'ID', id);
    expect(await reaper.reap()).toBe(0);
    await sleep(HEARTBEAT_TTL_MS + 250);
    expect(await reaper.reap()).toBe(0);
    expect(await checker.hget(ownersKey, 'job-2')).toBe(before);
    expect(await checker.get(lockKey('job-2'))).toBe('token-2');
    expect(worker.status).toBe('ready');
  });

  it('never frees a lock that another worker took since', async () => {
    const { worker, checker, owners, reaper, lockKey, claimed } = await twoWorkers();
    await checker.set(lockKey('job-3'), 'token-dead', 'PX', 30_000);
    owners.claim('job-3', 'token-dead');
    await claimed('job-3');
    worker.disconnect();
    owners.stop();
    await sleep(HEARTBEAT_TTL_MS + 50);
    // The lock lapsed and another worker took the job before it recorded itself.
    await checker.set(lockKey('job-3'), 'token-new', 'PX', 30_000);
    expect(await reaper.reap()).toBe(0);
    expect(await checker.get(lockKey('job-3'))).toBe('token-new');
  });
});
