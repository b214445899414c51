import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { AsyncJobStore, FinishedJob } from '../../src/async-jobs/job-store';
import type { JobOutcome } from '../../src/domain/async-job';
import { eventually, isolatedSpace, userMessage } from '../helpers/completion-fixtures';
import { useSimulatedHarness } from '../helpers/completions';
import { forgetRedis } from '../helpers/forget-redis';
import type { Tenant } from '../helpers/test-context';

/** Async jobs' records live in PostgreSQL: what Redis forgets does not take a finished job with it. */
const env = useSimulatedHarness();

const getJob = (tenant: Tenant, id: string) => request(env.h.app).get(`/v1/jobs/${id}`).set(tenant.auth);

async function ended(tenant: Tenant, id: string) {
  return eventually(async () => {
    const read = await getJob(tenant, id);
    return ['queued', 'in_progress'].includes(read.body.status) ? null : read;
  });
}

describe('an async job after Redis lost its data', () => {
  it('is still readable with its result once every key of the deployment is gone', async () => {
    const { tenant } = await isolatedSpace(env.h, { models: [{ name: 'answering' }] });
    const accepted = await request(env.h.app)
      .post('/v1/chat/completions')
      .set(tenant.auth)
      .set({ Prefer: 'respond-async' })
      .send({ messages: userMessage('Remember me') });
    expect(accepted.status).toBe(202);
    const before = await ended(tenant, accepted.body.id);
    expect(before.body.status).toBe('completed');

    expect(await forgetRedis(env.h.services.redis, env.h.services.config.redisPrefix)).toBeGreaterThan(0);
    const after = await getJob(tenant, accepted.body.id);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    expect(after.body.response.body.object).toBe('chat.completion');
  });
});

describe('the PostgreSQL store of async jobs', () => {
  const store = (): AsyncJobStore => env.h.services.asyncJobs;
  const outcome = { failure: { status: 500, type: 'api_error', code: 'internal_error', message: 'x', param: null } } as unknown as JobOutcome;
  const ended: FinishedJob = { status: 'failed', outcome, webhook: null, model: 'm-answered' };
  async function queuedJob(appId = randomUUID(), acceptedAt = Date.now()): Promise<string> {
    const id = randomUUID();
    await store().create({ id, orgId: randomUUID(), appId, createdAt: Math.floor(acceptedAt / 1000), model: 'm-asked', webhookUrl: null }, acceptedAt);
    return id;
  }

  it('lets exactly one of a cancel and a finish racing each other win, and keeps what the winner wrote', async () => {
    for (let i = 0; i < 20; i++) {
      const id = await queuedJob();
      const [before, finishedAs] = await Promise.all([store().cancel(id), store().finish({ id, appId: '' }, ended)]);
      const record = await store().get(id);
      if (before === 'queued') {
        expect(finishedAs).toBe('cancelled');
        expect(record).toMatchObject({ status: 'cancelled', outcome: null, model: 'm-asked' });
      } else {
        expect([before, finishedAs]).toEqual(['failed', 'failed']);
        expect(record).toMatchObject({ status: 'failed', outcome, model: 'm-answered' });
      }
      expect(record?.finishedAt).toEqual(expect.any(Number));
    }
  });

  it('keeps no outcome at privacy level 3, and drops the kept ones of a Space that rises to it', async () => {
    const appId = randomUUID();
    const [secret, kept, other] = [await queuedJob(appId), await queuedJob(appId), await queuedJob()];
    await store().finish({ id: secret, appId }, { ...ended, outcome: null });
    await store().finish({ id: kept, appId }, ended);
    await store().finish({ id: other, appId: '' }, ended);
    expect((await store().get(secret))?.outcome).toBeNull();
    expect((await store().get(kept))?.outcome).toEqual(outcome);
    await store().withholdSpace(appId);
    expect(await store().get(kept)).toMatchObject({ status: 'failed', outcome: null });
    expect((await store().get(other))?.outcome).toEqual(outcome);
  });

  it('reads an expired record as unknown, and its sweep deletes it (and only expired ones)', async () => {
    const ttlMs = env.h.services.config.asyncJobs.resultTtlSeconds * 1000;
    // Accepted a TTL and a second ago: expired (a sweep run "in the future" would delete other test files' live jobs).
    const expired = await queuedJob(randomUUID(), Date.now() - ttlMs - 1000);
    const live = await queuedJob();
    expect(await env.h.services.db.asyncJob.findUnique({ where: { id: expired } })).not.toBeNull();
    expect(await store().get(expired)).toBeNull();
    expect(await store().cancel(expired)).toBeNull();
    expect(await store().finish({ id: expired, appId: '' }, ended)).toBeNull();
    expect(await store().sweep()).toBeGreaterThanOrEqual(1);
    expect(await env.h.services.db.asyncJob.findUnique({ where: { id: expired } })).toBeNull();
    expect(await store().get(live)).toMatchObject({ status: 'queued' });
  });

  it('answers null to a finish or cancel of an unknown job', async () => {
    expect(await store().cancel(randomUUID())).toBeNull();
    expect(await store().finish({ id: randomUUID(), appId: '' }, ended)).toBeNull();
  });
});
