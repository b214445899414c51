import request from 'supertest';
import type { Model } from '../../src/generated/prisma/client';
import { batchLine, chatBody, createBatch, fileLines, readBatch, uploadInput, waitForBatch } from '../helpers/batch-fixtures';
import { testBatchConfig } from '../helpers/batch-config';
import { callsTo, complete, eventually, isolatedSpace, logsOf, sleep, userMessage } from '../helpers/completion-fixtures';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { watchLoopStalls } from '../helpers/loop-stalls';
import type { RecordedRequest } from '../simulator/server';
import { startSimulator, type Simulator } from '../simulator/server';

/** Fairness (per-Space cap, other Spaces and interactive requests keep running), cancel and expiry, with workers in this process. */

let sim: Simulator;
let h: CompletionsHarness;
/** A second deployment whose completion window is 3 s, for expiry. */
let shortWindow: CompletionsHarness;
const SPACE_CAP = 2;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim), batches: testBatchConfig({ spaceConcurrency: SPACE_CAP, lineConcurrency: 16 }) });
  shortWindow = startCompletionsHarness({ providers: simulatedProviders(sim), batches: testBatchConfig({ spaceConcurrency: 1, completionWindowSeconds: 3 }) });
});
afterAll(async () => {
  await h.close();
  await shortWindow.close();
  await sim.close();
});

/** Most upstream calls in flight at once among `calls`. */
function maxOverlap(calls: RecordedRequest[]): number {
  const edges = calls.flatMap((call) => [
    { at: call.receivedAt, delta: 1 },
    { at: call.closedAt ?? Number.MAX_SAFE_INTEGER, delta: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let now = 0;
  let most = 0;
  for (const edge of edges) {
    now += edge.delta;
    most = Math.max(most, now);
  }
  return most;
}

const lines = (model: string, count: number, prefix = 'line') =>
  Array.from({ length: count }, (_, i) => batchLine(`${prefix}-${i}`, chatBody(model, `${prefix} ${i}`)));

describe('fairness', () => {
  it("keeps a Space's batch lines under its cap while another Space's batch and interactive requests run", async () => {
    const a = await isolatedSpace(h, { models: [{ name: 'slow-a', namespace: 'sim-slow-700' }, { name: 'quick-a' }] });
    const b = await isolatedSpace(h, { models: [{ name: 'quick-b' }] });
    const big = await createBatch(h.app, a.tenant, await uploadInput(h.app, a.tenant, lines('slow-a', 20)));
    await eventually(() => (callsTo(sim, a.models['slow-a']).length >= SPACE_CAP ? true : null));
    // Another Space's batch runs meanwhile, and finishes long before the big one.
    const small = await createBatch(h.app, b.tenant, await uploadInput(h.app, b.tenant, lines('quick-b', 3)));
    const smallDone = await waitForBatch(() => readBatch(h.app, b.tenant, small.id), { timeoutMs: 15_000 });
    expect(smallDone).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 3, failed: 0 } });
    // An interactive request of the busy Space is answered beside its batch, not behind it.
    const interactive = await complete(h, a.tenant, { model: 'quick-a', messages: userMessage('interactive') });
    expect(interactive.status).toBe(200);
    const interactiveAt = Date.now();

    const bigDone = await waitForBatch(() => readBatch(h.app, a.tenant, big.id), { timeoutMs: 40_000 });
    expect(bigDone.request_counts).toEqual({ total: 20, completed: 20, failed: 0 });
    const calls = callsTo(sim, a.models['slow-a']);
    expect(calls).toHaveLength(20);
    expect(maxOverlap(calls)).toBe(SPACE_CAP);
    // Both were answered while the big batch still had lines to start.
    const lastStart = Math.max(...calls.map((call) => call.receivedAt));
    const smallEnd = Math.max(...callsTo(sim, b.models['quick-b']).map((call) => call.closedAt ?? Infinity));
    expect(smallEnd).toBeLessThan(lastStart);
    expect(interactiveAt).toBeLessThan(lastStart);
  }, 60_000);
});

describe('cancel', () => {
  it('stops pending lines within seconds; running ones finish and are in the output', async () => {
    const c = await isolatedSpace(h, { models: [{ name: 'slow-c', namespace: 'sim-slow-1500' }] });
    const model: Model = c.models['slow-c'];
    const batch = await createBatch(h.app, c.tenant, await uploadInput(h.app, c.tenant, lines('slow-c', 20)));
    const deadline = Date.now() + 10_000;
    while (callsTo(sim, model).length < SPACE_CAP && Date.now() < deadline) await sleep(50);
    const cancelling = await request(h.app).post(`/v1/batches/${batch.id}/cancel`).set(c.tenant.auth);
    expect(cancelling.status).toBe(200);
    expect(cancelling.body).toMatchObject({ status: 'cancelling', cancelling_at: expect.any(Number) });
    const clock = watchLoopStalls();
    const done = await waitForBatch(() => readBatch(h.app, c.tenant, batch.id), { timeoutMs: 20_000 });
    // Within seconds of the process's own time (however loaded the machine): not after the 18 pending lines.
    expect(clock.ownMs()).toBeLessThan(5000);
    clock.stop();
    expect(done).toMatchObject({ status: 'cancelled', cancelled_at: expect.any(Number), request_counts: { total: 20, completed: SPACE_CAP, failed: 0 } });
    const output = await fileLines(h.app, c.tenant, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(['line-0', 'line-1']);
    await sleep(500);
    expect(callsTo(sim, model)).toHaveLength(SPACE_CAP);
    // An ended batch cannot be cancelled again into another state.
    const again = await request(h.app).post(`/v1/batches/${batch.id}/cancel`).set(c.tenant.auth);
    expect(again.body.status).toBe('cancelled');
  }, 30_000);
});

describe('expiry', () => {
  it("gives unfinished lines OpenAI's batch_expired error when the window passes", async () => {
    const e = await isolatedSpace(shortWindow, { models: [{ name: 'slow-e', namespace: 'sim-slow-1200' }] });
    const batch = await createBatch(shortWindow.app, e.tenant, await uploadInput(shortWindow.app, e.tenant, lines('slow-e', 8)));
    expect(batch.expires_at).toBe(batch.created_at + 3);
    const done = await waitForBatch(() => readBatch(shortWindow.app, e.tenant, batch.id), { timeoutMs: 15_000 });
    expect(done).toMatchObject({ status: 'expired', expired_at: expect.any(Number) });
    const output = await fileLines(shortWindow.app, e.tenant, done.output_file_id);
    const errors = await fileLines(shortWindow.app, e.tenant, done.error_file_id);
    expect(output.length).toBeGreaterThanOrEqual(1);
    expect(output.length + errors.length).toBe(8);
    expect([...output, ...errors].map((line) => line.custom_id).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `line-${i}`).sort());
    expect(errors[0]).toEqual({
      id: expect.stringMatching(/^batch_req_/),
      custom_id: expect.any(String),
      response: null,
      error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' },
    });
    expect(done.request_counts).toEqual({ total: 8, completed: output.length, failed: errors.length });
  }, 30_000);
});

describe('privacy', () => {
  it("masks a level-2 Space's line logs as for any completion; the output file is the caller's, in full", async () => {
    const p = await isolatedSpace(h, { models: [{ name: 'private', gdpr: true }], update: { policies: { privacy_level: 2 } } });
    const secret = 'my account number is 12345678';
    const batch = await createBatch(h.app, p.tenant, await uploadInput(h.app, p.tenant, [batchLine('only', chatBody('private', secret))]));
    const done = await waitForBatch(() => readBatch(h.app, p.tenant, batch.id));
    const [line] = await fileLines(h.app, p.tenant, done.output_file_id);
    const response = line?.response as { request_id: string; body: { choices: { message: { content: string } }[] } };
    expect(response.body.choices[0]?.message.content).toBe(`Echo: ${secret}`);
    const { parent } = await logsOf(h, response.request_id);
    expect(parent).toMatchObject({ privacy_level: 2, prompt: '[masked]', response_text: '[masked]' });
    // Nothing of the batch's requests or answers is left in PostgreSQL but the files.
    expect(await h.services.db.batchLine.count({ where: { batch_id: batch.id } })).toBe(0);
  });
});
