import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Model } from '../../src/generated/prisma/client';
import { callsTo, complete, isolatedSpace, sleep, userMessage } from '../helpers/completion-fixtures';
import type { CompletionsHarness } from '../helpers/completions';
import { createTestContext, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * Real worker processes (`SWITCHYARD_ROLE=workers`, run from source) behind an in-process API, so a
 * worker can be killed with SIGKILL while it holds jobs.
 */
const ROOT = join(__dirname, '..', '..');
/** How long one slow answer takes upstream, in ms: long enough to start a second worker meanwhile (from source, on a loaded machine). */
const SLOW_MS = 20_000;

let sim: Simulator;
let api: TestContext;
const prefix = `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`;
const workers: ChildProcess[] = [];

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      SWITCHYARD_ROLE: 'workers',
      REDIS_PREFIX: prefix,
      OPENAI_API_KEY: 'sim-key',
      OPENAI_BASE_URL: sim.baseUrls.openai,
      UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'silent',
    },
    stdio: 'ignore',
  });
  workers.push(child);
  return child;
}

/** Resolves once `count` worker processes are connected to the completions queue. */
async function workersConnected(count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await api.services.queues.completions.getWorkersCount()) < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} workers after 30 s`);
    await sleep(100);
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

beforeAll(async () => {
  sim = await startSimulator();
  api = createTestContext({ redisPrefix: prefix });
});
afterAll(async () => {
  for (const child of workers) child.kill('SIGKILL');
  await api.close();
  await sim.close();
});

describe('a worker killed with kill -9', () => {
  it('has its jobs finished by another worker within 5 s of the kill plus their own time, and no finished job runs again', async () => {
    const harness = { ...api, workers: { close: async () => undefined } } as CompletionsHarness;
    const { tenant, models } = await isolatedSpace(harness, {
      models: [
        { name: 'quick', quality: 0.9 },
        { name: 'slow', namespace: `sim-slow-${SLOW_MS}`, quality: 0.1 },
      ],
    });
    const doomed = startWorkerProcess();
    await workersConnected(1);
    const finished = await Promise.all([0, 1, 2].map(() => complete(api, tenant, { model: 'quick', messages: userMessage('Done before the kill') })));
    expect(finished.map((r) => r.status)).toEqual([200, 200, 200]);

    const slow = { namespace: models.slow.namespace } as Model;
    const held = [0, 1, 2, 3].map(() =>
      complete(api, tenant, { model: 'slow', messages: userMessage('Held by the doomed worker') }).then((res) => ({ res, at: Date.now() })),
    );
    await until(() => callsTo(sim, slow).length === 4, 'the doomed worker to call upstream');
    startWorkerProcess();
    await workersConnected(2);
    // Each slow answer is still under way on the doomed worker: the new one is idle.
    expect(callsTo(sim, slow).every((call) => call.closedAt === undefined)).toBe(true);
    const killedAt = Date.now();
    doomed.kill('SIGKILL');

    // Each held job is called again by the new worker within 5 s of the kill (the upstream call was lost with the worker).
    await until(() => callsTo(sim, slow).length === 8, 'the held jobs to start again');
    const restartedAfter = callsTo(sim, slow)
      .slice(4)
      .map((call) => call.receivedAt - killedAt);
    expect(Math.max(...restartedAfter)).toBeLessThan(5000);
    const answers = await Promise.all(held);
    expect(answers.map(({ res }) => res.status)).toEqual([200, 200, 200, 200]);
    // Then each answers after its own upstream time, plus the pipeline's (slow on a loaded machine).
    for (const { at } of answers) expect(at - killedAt).toBeLessThan(5000 + SLOW_MS + 5000);
    // Finished jobs never run again.
    expect(callsTo(sim, models.quick)).toHaveLength(3);
  }, 150_000);

  it('keeps the locks of a busy worker: 200 slow jobs at once each call upstream exactly once', async () => {
    const harness = { ...api, workers: { close: async () => undefined } } as CompletionsHarness;
    const { tenant, models } = await isolatedSpace(harness, { models: [{ name: 'slow', namespace: `sim-slow-${uniqueSlowMs()}`, quality: 0.9 }] });
    for (const child of workers) child.kill('SIGKILL');
    startWorkerProcess();
    await workersConnected(1);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => complete(api, tenant, { messages: userMessage(`busy ${i}`) })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(callsTo(sim, models.slow)).toHaveLength(200);
  }, 90_000);
});

/** Longer than the stalled-job checks' interval several times over; unique per run, so its calls can be counted. */
function uniqueSlowMs(): number {
  return 5000 + Math.floor(Math.random() * 100);
}
