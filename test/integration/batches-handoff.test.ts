import { startWorkers } from '../../src/app/start-workers';
import { batchLine, chatBody, createBatch, readBatch, uploadInput, waitForBatch } from '../helpers/batch-fixtures';
import { testBatchConfig } from '../helpers/batch-config';
import { isolatedSpace, sleep } from '../helpers/completion-fixtures';
import { watchLoopStalls } from '../helpers/loop-stalls';
import { simulatedProviders, UNBOUNDED_RESILIENCE, type CompletionsHarness } from '../helpers/completions';
import { createTestContext, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { startSimulator, type Simulator } from '../simulator/server';

/** A graceful stop (SIGTERM) hands a running batch back to the queue at once; the next workers finish it. */

let sim: Simulator;
let ctx: TestContext;

beforeAll(async () => {
  sim = await startSimulator();
  const redisPrefix = `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`;
  ctx = createTestContext({ redisPrefix, providers: simulatedProviders(sim), ...UNBOUNDED_RESILIENCE, batches: testBatchConfig({ spaceConcurrency: 2 }) });
});
afterAll(async () => {
  await ctx.close();
  await sim.close();
});

it('stops its workers without waiting for the batch to end, and new workers finish it', async () => {
  const first = startWorkers(ctx.services);
  const harness = { ...ctx, workers: first } as CompletionsHarness;
  const { tenant } = await isolatedSpace(harness, { models: [{ name: 'slow', namespace: 'sim-slow-500' }] });
  const input = Array.from({ length: 12 }, (_, i) => batchLine(`r${i}`, chatBody('slow', `q${i}`)));
  const batch = await createBatch(ctx.app, tenant, await uploadInput(ctx.app, tenant, input));
  while (((await readBatch(ctx.app, tenant, batch.id)).request_counts?.completed ?? 0) < 2) await sleep(50);

  const clock = watchLoopStalls();
  await first.close();
  // Running lines finish (500 ms each); the coordinator does not wait for the other lines (on the process's own time).
  expect(clock.ownMs()).toBeLessThan(3000);
  clock.stop();
  const paused = await readBatch(ctx.app, tenant, batch.id);
  expect(paused.status).toBe('in_progress');
  expect(paused.request_counts?.completed).toBeLessThan(12);

  const second = startWorkers(ctx.services);
  try {
    const done = await waitForBatch(() => readBatch(ctx.app, tenant, batch.id), { timeoutMs: 20_000 });
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 12, completed: 12, failed: 0 } });
  } finally {
    await second.close();
  }
}, 40_000);
