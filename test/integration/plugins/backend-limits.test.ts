import { spawn } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import { BackendLimiter } from '../../../src/plugins/backend-limits';
import { UpstreamError } from '../../../src/errors/upstream-error';
import { eventually } from '../../helpers/completion-fixtures';
import { TEST_REDIS_URL, uniqueSuffix } from '../../helpers/test-database';

const logger = pino({ level: 'silent' });
const connections: Redis[] = [];
const limiters: BackendLimiter[] = [];

/** One worker: its own Redis connection and limiter, on the test's prefix. */
function worker(prefix: string): BackendLimiter {
  const redis = new Redis(TEST_REDIS_URL);
  connections.push(redis);
  const limiter = new BackendLimiter(redis, prefix, logger);
  limiters.push(limiter);
  return limiter;
}

afterAll(async () => {
  await Promise.all(limiters.map((limiter) => limiter.close()));
  await Promise.all(connections.map((redis) => redis.quit().catch(() => undefined)));
});

/** Work that runs until the test lets it finish, counting how many run at once. */
function gatedWork() {
  const gates: (() => void)[] = [];
  const state = { running: 0, most: 0, finished: 0 };
  const work = () =>
    new Promise<string>((resolve) => {
      state.running += 1;
      state.most = Math.max(state.most, state.running);
      gates.push(() => {
        state.running -= 1;
        state.finished += 1;
        resolve('done');
      });
    });
  const finishOne = () => gates.shift()?.();
  return { state, work, finishOne };
}

const options = (ms = 20_000) => ({ signal: new AbortController().signal, deadline: Date.now() + ms });

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const err = await promise.then(
    () => new Error('it ran'),
    (caught: unknown) => caught,
  );
  if (!(err instanceof UpstreamError)) throw err;
  return err;
}

describe('BackendLimiter', () => {
  it('holds the limit across two workers and runs the queued work as slots free', async () => {
    const prefix = `test-limits-${uniqueSuffix()}`;
    const [first, second] = [worker(prefix), worker(prefix)];
    const { state, work, finishOne } = gatedWork();
    const runs = Array.from({ length: 6 }, (_, index) => (index % 2 === 0 ? first : second).run('web-search:sim', 2, work, options()));
    await eventually(async () => (state.running === 2 ? true : null));
    for (let freed = 1; freed <= 4; freed += 1) {
      finishOne();
      await eventually(async () => (state.finished === freed && state.running === 2 ? true : null));
    }
    finishOne();
    finishOne();
    await expect(Promise.all(runs)).resolves.toEqual(Array(6).fill('done'));
    expect(state.most).toBe(2);
  });

  it('keeps separate limits per backend key', async () => {
    const prefix = `test-limits-${uniqueSuffix()}`;
    const limiter = worker(prefix);
    const { state, work, finishOne } = gatedWork();
    const runs = ['a', 'b', 'c'].map((backend) => limiter.run(`web-search:${backend}`, 1, work, options()));
    await eventually(async () => (state.running === 3 ? true : null));
    [1, 2, 3].forEach(finishOne);
    await Promise.all(runs);
  });

  it('frees the slot when the work fails', async () => {
    const limiter = worker(`test-limits-${uniqueSuffix()}`);
    await expect(limiter.run('k', 1, () => Promise.reject(new Error('backend broke')), options())).rejects.toThrow('backend broke');
    await expect(limiter.run('k', 1, async () => 'again', options(2000))).resolves.toBe('again');
  });

  it('stops waiting when the signal aborts, and never runs the work', async () => {
    const limiter = worker(`test-limits-${uniqueSuffix()}`);
    const { state, work, finishOne } = gatedWork();
    const holder = limiter.run('k', 1, work, options());
    await eventually(async () => (state.running === 1 ? true : null));
    const controller = new AbortController();
    let ran = false;
    const waiting = limiter.run('k', 1, async () => (ran = true), { signal: controller.signal, deadline: Date.now() + 20_000 });
    controller.abort();
    const err = await failure(waiting);
    expect(err.kind).toBe('aborted');
    expect(ran).toBe(false);
    finishOne();
    await holder;
  });

  it('fails with timeout when no slot frees before the deadline', async () => {
    const limiter = worker(`test-limits-${uniqueSuffix()}`);
    const { state, work, finishOne } = gatedWork();
    const holder = limiter.run('k', 1, work, options());
    await eventually(async () => (state.running === 1 ? true : null));
    const err = await failure(limiter.run('k', 1, async () => 'late', options(300)));
    expect(err).toMatchObject({ kind: 'timeout', provider: 'k' });
    finishOne();
    await holder;
  });

  it('gets back the slot of a worker killed with SIGKILL once its lease expires', async () => {
    const prefix = `test-limits-${uniqueSuffix()}`;
    const script = path.join(__dirname, 'slot-holder.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', script, TEST_REDIS_URL, prefix, 'k', '1500'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('holding') && resolve());
      child.once('exit', (code) => reject(new Error(`the holder exited early (${code})`)));
    });
    const limiter = worker(prefix);
    // Held: a short wait finds no slot while the holder lives and renews its lease.
    expect((await failure(limiter.run('k', 1, async () => 'too soon', options(2000)))).kind).toBe('timeout');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await expect(limiter.run('k', 1, async () => 'after the lease', options(10_000))).resolves.toBe('after the lease');
  });
});
