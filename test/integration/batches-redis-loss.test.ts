import pino from 'pino';
import { batchLine, chatBody, createBatch, fileLines, readBatch, uploadInput, waitForBatch } from '../helpers/batch-fixtures';
import { testBatchConfig } from '../helpers/batch-config';
import { callsTo, eventually, isolatedSpace } from '../helpers/completion-fixtures';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { forgetRedis } from '../helpers/forget-redis';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * Redis loses every key of the deployment in the middle of a batch (a restart without persistence):
 * the batch's progress is in PostgreSQL, so the same workers, not restarted, resume it by themselves
 * (their resume check re-adds its coordinator, which hands the lost lines over again) and every line
 * is answered exactly once.
 */
const LINES = 30;
/** Lines in flight per Space; more than the line workers take at once, so some wait in the queue when Redis forgets them. */
const CAP = 6;
const LINE_WORKERS = 2;
const SLOW_MS = 1000;

let sim: Simulator;
let h: CompletionsHarness;
const logLines: string[] = [];

beforeAll(async () => {
  sim = await startSimulator();
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logLines.push(line) });
  h = startCompletionsHarness(
    { providers: simulatedProviders(sim), batches: testBatchConfig({ spaceConcurrency: CAP, lineConcurrency: LINE_WORKERS }) },
    { logger },
  );
});
afterAll(async () => {
  await h.close();
  await sim.close();
});

/** Upstream calls per question, from the simulator's record of requests to the model. */
function callsPerQuestion(calls: ReturnType<typeof callsTo>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of calls) {
    const content = (call.body as { messages: { content: string }[] }).messages.at(-1)?.content ?? '';
    counts.set(content, (counts.get(content) ?? 0) + 1);
  }
  return counts;
}

it('resumes a running batch within 30 s of Redis losing its data, with no line lost or doubled', async () => {
  const { tenant, models } = await isolatedSpace(h, { models: [{ name: 'slow', namespace: `sim-slow-${SLOW_MS}` }] });
  const input = Array.from({ length: LINES }, (_, i) => batchLine(`req-${i}`, chatBody('slow', `question ${i}`)));
  const batch = await createBatch(h.app, tenant, await uploadInput(h.app, tenant, input));
  await eventually(async () => ((await readBatch(h.app, tenant, batch.id)).request_counts?.completed ?? 0) >= 4 || null, 30_000);

  const forgotAt = Date.now();
  expect(await forgetRedis(h.services.redis, h.services.config.redisPrefix)).toBeGreaterThan(0);
  expect(await h.services.queues.batches.getJob(batch.id)).toBeUndefined();
  const atLoss = (await readBatch(h.app, tenant, batch.id)).request_counts?.completed ?? 0;
  expect(atLoss).toBeLessThan(LINES);

  // The workers' resume check gives the batch a coordinator again, without any restart.
  await eventually(async () => (await h.services.queues.batches.getJob(batch.id)) ?? null);
  const done = await waitForBatch(() => readBatch(h.app, tenant, batch.id), { timeoutMs: 60_000 });
  const resumedIn = Date.now() - forgotAt;
  expect(done).toMatchObject({ status: 'completed', request_counts: { total: LINES, completed: LINES, failed: 0 } });
  // What was left ran at LINE_WORKERS lines per SLOW_MS; the rest is the pause: at most 30 s.
  const leftMs = ((LINES - atLoss) / LINE_WORKERS) * SLOW_MS;
  expect(resumedIn - leftMs).toBeLessThan(30_000);

  // The coordinator that was running when its job vanished stopped by itself (the re-added one finished the batch).
  expect(logLines.some((line) => line.includes(batch.id) && line.includes('batch coordinator stopped: its job was lost'))).toBe(true);

  const output = await fileLines(h.app, tenant, done.output_file_id);
  expect(output.map((line) => line.custom_id)).toEqual(Array.from({ length: LINES }, (_, i) => `req-${i}`));
  const calls = callsPerQuestion(callsTo(sim, models.slow));
  expect([...calls.keys()].sort()).toEqual(Array.from({ length: LINES }, (_, i) => `question ${i}`).sort());
  expect([...calls.values()].every((count) => count === 1)).toBe(true);
}, 120_000);
