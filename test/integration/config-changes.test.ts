import request from 'supertest';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { callsTo, complete, eventually, isolatedSpace, userMessage } from '../helpers/completion-fixtures';
import { createTestContext, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * Two processes' worth of services on one Redis prefix and database: `h` serves completions (API and
 * workers, each with its own caches) and `other` is a second API process through which the Space is
 * changed. Whatever `h` cached must not outlive the change.
 */
let sim: Simulator;
let h: CompletionsHarness;
let other: TestContext;

beforeAll(async () => {
  sim = await startSimulator();
  const redisPrefix = `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`;
  h = startCompletionsHarness({ providers: simulatedProviders(sim), redisPrefix });
  other = createTestContext({ providers: simulatedProviders(sim), redisPrefix });
});
afterAll(async () => {
  await h.close();
  await other.close();
  await sim.close();
});

interface Sent {
  sentAt: number;
  answeredAt: number;
  logId: string;
  status: number;
}

/** Sends completions from `clients` concurrent loops until `stop()` is called. */
function continuousTraffic(send: () => Promise<request.Response>, clients: number) {
  const sent: Sent[] = [];
  let running = true;
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      const sentAt = Date.now();
      const res = await send();
      sent.push({ sentAt, answeredAt: Date.now(), logId: String(res.headers['x-switchyard-log-id']), status: res.status });
    }
  });
  return {
    sent,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

describe('a change of a Space', () => {
  it('to privacy level 3 applies to every request sent after its 200, in every process', async () => {
    const { tenant } = await isolatedSpace(h, { models: [{ name: 'answering', gdpr: true }] });
    const traffic = continuousTraffic(() => complete(h, tenant, { messages: userMessage('My secret is 1234.') }), 4);
    // Enough answers on each side of the change, however busy the machine (fixed sleeps saw 4 on a loaded one).
    const answeredSince = (since: number) => traffic.sent.filter((r) => r.sentAt >= since).length;
    await eventually(() => (traffic.sent.length > 12 ? true : undefined));
    const changing = Date.now();
    const update = await request(other.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, policies: { privacy_level: 3 } });
    expect(update.status).toBe(200);
    const switchedAt = Date.now();
    await eventually(() => (answeredSince(switchedAt) > 5 ? true : undefined));
    await traffic.stop();

    // Answered before the change was asked for: run at the old level. Sent after its 200: at the new one.
    // A request under way meanwhile may run at either (however long the API took to take it in).
    const before = traffic.sent.filter((r) => r.answeredAt < changing);
    const after = traffic.sent.filter((r) => r.sentAt >= switchedAt);
    expect(before.length).toBeGreaterThan(5);
    expect(after.length).toBeGreaterThan(5);
    expect([...before, ...after].every((r) => r.status === 200)).toBe(true);
    // Logs are committed before answers are released: every log that will ever exist exists now.
    expect(await h.services.db.log.count({ where: { id: { in: before.map((r) => r.logId) }, privacy_level: 1 } })).toBe(before.length);
    expect(await h.services.db.log.count({ where: { id: { in: after.map((r) => r.logId) } } })).toBe(0);
    expect(await h.services.db.log.count({ where: { app_id: tenant.app_id, privacy_level: 1, timestamp: { gte: BigInt(switchedAt) } } })).toBe(0);
  });

  it('switching its best model off sends the next request to another model', async () => {
    const { tenant, models } = await isolatedSpace(h, {
      models: [
        { name: 'best', quality: 0.9 },
        { name: 'second', quality: 0.6 },
      ],
    });
    expect((await complete(h, tenant, { messages: userMessage('Hi') })).body.model).toBe('best');
    const off = await request(other.app).put(`/v1/apps/${tenant.app_id}/models/${models.best.id}`).set(tenant.auth).send({ active: false });
    expect(off.status).toBe(200);
    const res = await complete(h, tenant, { messages: userMessage('Hi again') });
    expect(res.body.model).toBe('second');
    expect(callsTo(sim, models.best)).toHaveLength(1);
  });

  it('a new failover chain is used by the next request', async () => {
    const { tenant, models } = await isolatedSpace(h, {
      models: [
        { name: 'primary', namespace: 'sim-500', quality: 0.9 },
        { name: 'ranked', quality: 0.8 },
        { name: 'backup', quality: 0.1 },
      ],
      update: { has_failover_chain: true, policies: { max_switch_model_retries: 1, max_same_model_retries: 0 } },
      chain: ['ranked'],
    });
    expect((await complete(h, tenant, { messages: userMessage('Hi') })).body.model).toBe('ranked');
    const chain = await request(other.app)
      .put(`/v1/apps/${tenant.app_id}/failover`)
      .set(tenant.auth)
      .send({ model_ids: [models.backup.id] });
    expect(chain.status).toBe(200);
    expect((await complete(h, tenant, { messages: userMessage('Hi again') })).body.model).toBe('backup');
  });
});
