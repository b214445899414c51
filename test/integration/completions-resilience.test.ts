import request from 'supertest';
import type { Model } from '../../src/generated/prisma/client';
import type { Config } from '../../src/config/schema';
import { startWorkers } from '../../src/app/start-workers';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { watchLoopStalls } from '../helpers/loop-stalls';
import { callsTo, complete, completeStream, isolatedSpace, logsOf, script, sleep, sseEvents, times, userMessage } from '../helpers/completion-fixtures';
import { createTestContext, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { startSimulator, type Simulator } from '../simulator/server';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

const ask = { messages: userMessage('Where is the nearest station?') };
const FAIL = { kind: 'status', status: 500 } as const;

/** The settings every harness of this file shares (providers on the simulator, the defaults of the features under test). */
function sharedConfig(): Partial<Config> {
  return { providers: simulatedProviders(sim), upstreamTimeoutMs: 2000, breakerMinFailures: 5, retryBudgetMinRetries: 10 };
}

/** A harness whose breakers and retry budget are the service's defaults unless `overrides` says otherwise. */
function harness(overrides: Partial<Config> = {}): CompletionsHarness {
  return startCompletionsHarness({ ...sharedConfig(), ...overrides });
}

/** Sends `count` requests, `parallel` at a time; resolves with their statuses and bodies. */
async function sendMany(send: () => Promise<{ status: number; body: unknown }>, { count, parallel }: { count: number; parallel: number }) {
  const results: { status: number; body: unknown }[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = await Promise.all(Array.from({ length: Math.min(parallel, count - i) }, () => send()));
    results.push(...batch);
  }
  return results;
}

describe('a dead primary with the failover chain on', () => {
  let h: CompletionsHarness;
  beforeAll(() => {
    h = harness({ breakerCooldownMs: 60_000 });
  });
  afterAll(() => h.close());

  it('costs at most 1.2 upstream calls per request, and later requests go straight to the healthy model', async () => {
    const { tenant, models } = await isolatedSpace(h, {
      models: [
        { name: 'dead', namespace: 'sim-500', quality: 0.9 },
        { name: 'healthy', quality: 0.5 },
      ],
      chain: ['healthy'],
      update: { has_failover_chain: true },
    });
    const results = await sendMany(() => complete(h, tenant, ask), { count: 100, parallel: 4 });
    expect(results.map((r) => r.status)).toEqual(times(100, 200 as never));
    expect(sim.requests.length).toBeLessThanOrEqual(120);
    const late = results.slice(50).map((r) => r.body as { id: string; model: string; metadata: { warning?: string } });
    expect(late.every((body) => body.model === 'healthy')).toBe(true);
    expect(late[0]?.metadata.warning).toContain('Skipped while cooling down after repeated upstream failures: dead.');
    const { children } = await logsOf(h, late.at(-1)?.id ?? '');
    expect(children.map((c) => c.model_id)).toEqual([models.healthy.id]);
  });
});

describe('failures of single requests, with the breakers and budget at their defaults', () => {
  let h: CompletionsHarness;
  beforeAll(() => {
    h = harness({ breakerCooldownMs: 60_000 });
  });
  afterAll(() => h.close());

  it('answers every request whose first call fails, whichever model it reaches, with one retry, after the breakers opened', async () => {
    const { tenant } = await isolatedSpace(h, {
      models: [
        { name: 'primary', quality: 0.9 },
        { name: 'fallback', quality: 0.5 },
      ],
      chain: ['fallback'],
      update: { has_failover_chain: true },
    });
    sim.failFirstCalls({ pattern: /\[req:(\d+)\]/, behaviour: FAIL });
    let next = 0;
    const results = await sendMany(() => complete(h, tenant, { messages: userMessage(`[req:${(next += 1)}] Where is the nearest station?`) }), {
      count: 40,
      parallel: 4,
    });
    expect(results.map((r) => r.status)).toEqual(times(40, 200 as never));
    expect(sim.requests).toHaveLength(80);
    // The models failed half their calls: the breakers opened, and the requests were answered anyway.
    const warnings = results.map((r) => (r.body as { metadata: { warning?: string } }).metadata.warning ?? '');
    expect(warnings.some((w) => w.includes('Skipped while cooling down'))).toBe(true);
  });

  it('fails over past three dead models to a healthy fourth, once their breakers are open', async () => {
    const { tenant, models } = await isolatedSpace(h, {
      models: [
        { name: 'm1', namespace: 'sim-500', quality: 0.9 },
        { name: 'm2', namespace: 'sim-502', quality: 0.8 },
        { name: 'm3', namespace: 'sim-503', quality: 0.7 },
        { name: 'm4', quality: 0.6 },
        { name: 'm5', quality: 0.5 },
      ],
      update: { policies: { max_same_model_retries: 0 } },
    });
    // The first requests spend their two switches on the dead models (502) and open their breakers.
    await sendMany(() => complete(h, tenant, ask), { count: 6, parallel: 2 });
    const dead = () => [models.m1, models.m2, models.m3].reduce((sum, m) => sum + callsTo(sim, m).length, 0);
    const before = dead();
    // Some of the first requests may have reached m4 already, depending on when the breakers opened.
    const healthyBefore = callsTo(sim, models.m4).length;
    const later = await sendMany(() => complete(h, tenant, ask), { count: 10, parallel: 2 });
    expect(later.map((r) => [r.status, (r.body as { model: string }).model])).toEqual(times(10, [200, 'm4'] as never));
    expect(dead()).toBe(before);
    expect(callsTo(sim, models.m4).length - healthyBefore).toBe(10);
  });
});

describe('circuit breakers shared by worker processes', () => {
  it('one process opens a breaker and the others skip the model, including a process started later', async () => {
    const settings = { redisPrefix: `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`, breakerCooldownMs: 60_000 };
    const contexts = [0, 1, 2].map(() => createTestContext({ ...sharedConfig(), ...settings }));
    const [api, other, later] = contexts as [TestContext, TestContext, TestContext];
    const first = { ...api, workers: startWorkers(api.services) };
    const otherWorkers = startWorkers(other.services);
    try {
      const { tenant, models } = await isolatedSpace(first, {
        models: [
          { name: 'dead', namespace: 'sim-500', quality: 0.9 },
          { name: 'healthy', quality: 0.5 },
        ],
      });
      // Both worker processes take jobs from the one queue until the breaker opens, and after.
      await sendMany(() => complete(first, tenant, ask), { count: 6, parallel: 2 });
      const dead = () => callsTo(sim, models.dead).length;
      const opened = dead();
      expect(opened).toBeLessThanOrEqual(8);
      await sendMany(() => complete(first, tenant, ask), { count: 20, parallel: 2 });
      expect(dead()).toBe(opened);
      // A worker process started now loads the open breaker from Redis.
      await Promise.all([first.workers.close(), otherWorkers.close()]);
      const laterWorkers = startWorkers(later.services);
      const res = await complete(first, tenant, ask);
      await laterWorkers.close();
      expect(res.status).toBe(200);
      expect(res.body.model).toBe('healthy');
      expect(dead()).toBe(opened);
    } finally {
      await Promise.all(contexts.map((ctx) => ctx.close()));
    }
  });
});

describe('half-open probes', () => {
  let h: CompletionsHarness;
  beforeAll(() => {
    h = harness({ breakerMinFailures: 3, breakerCooldownMs: 400, breakerMaxCooldownMs: 2000, retryBudgetMinRetries: 1000 });
  });
  afterAll(() => h.close());

  async function openBreaker() {
    const space = await isolatedSpace(h, {
      models: [
        { name: 'primary', quality: 0.9 },
        { name: 'backup', quality: 0.5 },
      ],
      update: { policies: { max_same_model_retries: 0 } },
    });
    script(sim, space.models.primary, times(3, FAIL));
    for (let i = 0; i < 3; i += 1) await complete(h, space.tenant, ask).expect(200);
    expect(callsTo(sim, space.models.primary)).toHaveLength(3);
    const skipped = await complete(h, space.tenant, ask).expect(200);
    expect(skipped.body.model).toBe('backup');
    expect(callsTo(sim, space.models.primary)).toHaveLength(3);
    return space;
  }

  it('lets one probe through after the cooldown; its success closes the breaker', async () => {
    const { tenant, models } = await openBreaker();
    await sleep(500);
    // The probe is slow, so the requests beside it find the probe taken and skip the model.
    script(sim, models.primary, [{ kind: 'ok', delayMs: 400 }]);
    const batch = await Promise.all(Array.from({ length: 5 }, () => complete(h, tenant, ask)));
    expect(batch.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(batch.filter((r) => r.body.model === 'primary')).toHaveLength(1);
    expect(callsTo(sim, models.primary)).toHaveLength(4);
    const after = await complete(h, tenant, ask).expect(200);
    expect(after.body.model).toBe('primary');
  });

  it("never opens for requests the upstream refused (400), which are the client's own mistakes", async () => {
    const { tenant, models } = await isolatedSpace(h, {
      models: [
        { name: 'strict', quality: 0.9 },
        { name: 'backup', quality: 0.5 },
      ],
    });
    script(sim, models.strict, times(6, { kind: 'status', status: 400 }));
    for (let i = 0; i < 6; i += 1) await complete(h, tenant, ask).expect(400);
    const res = await complete(h, tenant, ask).expect(200);
    expect(res.body.model).toBe('strict');
    expect(callsTo(sim, models.strict)).toHaveLength(7);
  });

  it('reopens after a failed probe, with a doubled cooldown', async () => {
    const { tenant, models } = await openBreaker();
    await sleep(500);
    script(sim, models.primary, [FAIL]);
    expect((await complete(h, tenant, ask).expect(200)).body.model).toBe('backup');
    expect(callsTo(sim, models.primary)).toHaveLength(4);
    const state = await h.services.redis.hgetall(`${h.services.config.redisPrefix}:breaker:${models.primary.id}`);
    expect(Number(state.cooldown)).toBe(800);
    await sleep(500);
    expect((await complete(h, tenant, ask).expect(200)).body.model).toBe('backup');
    expect(callsTo(sim, models.primary)).toHaveLength(4);
  });
});

describe('the retry budget', () => {
  let h: CompletionsHarness;
  beforeAll(() => {
    // Breakers out of the way, so only the budget limits the calls.
    h = harness({ breakerMinFailures: 1_000_000 });
  });
  afterAll(() => h.close());

  it('gives each request its second call, and keeps the calls beyond it to ten per failing model during a storm of 500s', async () => {
    // Switches only (no backoff waits), so the storm fits in the budget's 10 s window even on a loaded machine.
    const { tenant, models } = await isolatedSpace(h, {
      models: [
        { name: 'one', namespace: 'sim-500', quality: 0.9 },
        { name: 'two', namespace: 'sim-502', quality: 0.7 },
        { name: 'three', namespace: 'sim-503', quality: 0.5 },
      ],
      update: { policies: { max_same_model_retries: 0 } },
    });
    const results = await sendMany(() => complete(h, tenant, ask), { count: 100, parallel: 10 });
    expect(results.every((r) => r.status === 502)).toBe(true);
    // Without the budget: 300 calls (three per request).
    expect(callsTo(sim, models.one)).toHaveLength(100);
    expect(callsTo(sim, models.two)).toHaveLength(100);
    // Ten failures within 10 s, plus the third calls already past the budget check when the tenth failed (ten requests run at once).
    expect(callsTo(sim, models.three).length).toBeGreaterThanOrEqual(10);
    expect(callsTo(sim, models.three).length).toBeLessThanOrEqual(20);
  });
});

describe('max_switch_model_retries and the order of models', () => {
  let h: CompletionsHarness;
  beforeAll(() => {
    h = harness({ breakerMinFailures: 1_000_000, retryBudgetMinRetries: 1_000_000 });
  });
  afterAll(() => h.close());

  /** Four models ranked m1 > m2 > m3 > m4, every one failing, the chain [m4, m3]. */
  async function allFailing(policies: object) {
    const space = await isolatedSpace(h, {
      models: [
        { name: 'm1', quality: 0.9 },
        { name: 'm2', quality: 0.8 },
        { name: 'm3', quality: 0.7 },
        { name: 'm4', quality: 0.6 },
      ],
      chain: ['m4', 'm3'],
      update: { has_failover_chain: true, policies: { max_same_model_retries: 0, ...policies } },
    });
    for (const model of Object.values(space.models)) script(sim, model, times(5, FAIL));
    const order = () => sim.requests.map((r) => Object.values(space.models).find((m) => m.namespace === (r.body as { model: string }).model)?.model);
    return { ...space, order };
  }

  it.each([
    [0, ['m1']],
    [1, ['m1', 'm4']],
    [2, ['m1', 'm4', 'm3']],
    [3, ['m1', 'm4', 'm3', 'm2']],
  ])('with %i switches tries the first model, then the chain, then the ranking: exactly that many more models', async (switches, expected) => {
    const { tenant, order } = await allFailing({ max_switch_model_retries: switches });
    const res = await complete(h, tenant, ask);
    expect(res.status).toBe(502);
    expect(order()).toEqual(expected);
  });

  it('does the same for a named model, with max_same_model_retries calls more per model', async () => {
    const { tenant, order } = await allFailing({ max_switch_model_retries: 3, max_same_model_retries: 1 });
    const res = await complete(h, tenant, { ...ask, model: 'm2' });
    expect(res.status).toBe(502);
    expect(order()).toEqual(['m2', 'm2', 'm4', 'm4', 'm3', 'm3', 'm1', 'm1']);
  });
});

describe('time to first byte and the whole call', () => {
  let h: CompletionsHarness;
  beforeAll(() => {
    h = harness({ upstreamFirstByteTimeoutMs: 10_000, upstreamTimeoutMs: 30_000 });
  });
  afterAll(() => h.close());

  const hungFirst = (policies: object) =>
    isolatedSpace(h, {
      models: [
        { name: 'hung', namespace: 'sim-hang', quality: 0.9 },
        { name: 'steady', namespace: 'sim-drip-150', quality: 0.5 },
      ],
      update: { policies },
    });

  it('leaves a hung upstream after the Space first-byte timeout, without retrying it (whole answer)', async () => {
    const { tenant } = await hungFirst({ first_byte_timeout_ms: 400 });
    const clock = watchLoopStalls();
    const res = await complete(h, tenant, ask);
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('steady');
    expect(res.body.choices[0].message.content).toBe('Echo: Where is the nearest station?');
    expect(callsTo(sim, { namespace: 'sim-hang' } as Model)).toHaveLength(1);
    // 400 ms on the hung model, then about a second of steady drip (neither cut at 400 ms), on the process's own time.
    expect(clock.ownMs()).toBeLessThan(5000);
    clock.stop();
    const { children } = await logsOf(h, res.body.id);
    expect(children.map((c) => c.status_code)).toEqual([504, 200]);
  });

  it('does the same for a stream', async () => {
    const { tenant } = await hungFirst({ first_byte_timeout_ms: 400 });
    const res = await completeStream(h, tenant, ask);
    expect(res.status).toBe(200);
    const last = sseEvents(res.text).at(-1) as { metadata: { model: { model: string }; retries: number } };
    expect(last.metadata).toMatchObject({ retries: 1, model: { model: 'steady' } });
    expect(callsTo(sim, { namespace: 'sim-hang' } as Model)).toHaveLength(1);
  });

  it('cuts a steady answer at the whole-call timeout, and the client is told', async () => {
    const { tenant } = await isolatedSpace(h, {
      models: [{ name: 'steady', namespace: 'sim-drip-300', quality: 0.9 }],
      update: { policies: { first_byte_timeout_ms: 400, upstream_timeout_ms: 1000, max_same_model_retries: 0 } },
    });
    const res = await complete(h, tenant, ask);
    expect(res.status).toBe(504);
    expect(res.body.error.message).toContain('did not answer in time');
  });

  it('validates the timeout policies and shows them once set', async () => {
    const tenant = await h.tenant();
    const bad = await request(h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, policies: { first_byte_timeout_ms: 5 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('policies.first_byte_timeout_ms');
    const ok = await request(h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, policies: { first_byte_timeout_ms: 2000, upstream_timeout_ms: 120_000 } });
    expect(ok.status).toBe(200);
    expect(ok.body.main.app.policies).toMatchObject({ first_byte_timeout_ms: 2000, upstream_timeout_ms: 120_000 });
    const reset = await request(h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, policies: { first_byte_timeout_ms: null } });
    expect(reset.body.main.app.policies).not.toHaveProperty('first_byte_timeout_ms');
    expect(reset.body.main.app.policies.upstream_timeout_ms).toBe(120_000);
  });
});
