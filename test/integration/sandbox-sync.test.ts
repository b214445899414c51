import { Worker } from 'bullmq';
import request from 'supertest';
import type { Model } from '../../src/generated/prisma/client';
import type { SandboxSyncJob } from '../../src/queue/payloads';
import { QUEUE_NAMES } from '../../src/queue/names';
import { processSandboxSync, type SyncOutcome } from '../../src/services/apps/sandbox-sync';
import { appStore } from '../../src/store/apps';
import { sandboxSyncProcessor } from '../../workers/sandbox-sync';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';

let ctx: TestContext;
let alice: Tenant;
let defaults: Model[];
let optional: Model[];

beforeAll(async () => {
  ctx = createTestContext();
  alice = await ctx.tenant();
  const catalog = await ctx.services.db.model.findMany({ where: { app_id: null, org_id: null, is_public: true, globally_disabled: false } });
  defaults = catalog.filter((m) => m.default_active);
  optional = catalog.filter((m) => !m.default_active);
  if (defaults.length < 1 || optional.length < 1) throw new Error('these tests need a default and an optional catalog model');
});
afterAll(() => ctx.close());

function first(models: Model[]): Model {
  const model = models[0];
  if (!model) throw new Error('no model');
  return model;
}

async function newSpace(name = 'Helpdesk'): Promise<string> {
  const res = await request(ctx.app).post('/v1/apps').set(alice.auth).send({ name });
  expect(res.status).toBe(201);
  return res.body.app.id as string;
}

const getApp = (id: string) => request(ctx.app).get(`/v1/apps/${id}`).set(alice.auth);
const update = (body: object) => request(ctx.app).put('/v1/apps/update').set(alice.auth).send(body);

/** Runs the worker's processor on the job the API queued, without a BullMQ worker. */
async function runQueuedJob(mainAppId: string): Promise<SyncOutcome> {
  const jobs = await ctx.services.queues.sandboxSync.getJobs(['waiting', 'delayed', 'active', 'completed']);
  const job = jobs.find((candidate) => candidate.data.mainAppId === mainAppId);
  if (!job) throw new Error(`no sandbox-sync job for ${mainAppId}`);
  return sandboxSyncProcessor(ctx.services)(job);
}

async function sandboxIdOf(outcome: SyncOutcome): Promise<string> {
  if (outcome.result === 'skipped') throw new Error('the sync was skipped');
  return outcome.sandboxId;
}

/** A main Space with a non-default configuration, models and chain worth copying. */
async function configuredSpace(): Promise<{ mainId: string; extra: Model }> {
  const mainId = await newSpace();
  const extra = first(optional);
  await request(ctx.app).put(`/v1/apps/${mainId}/models/${extra.id}`).set(alice.auth).send({ active: true }).expect(200);
  await request(ctx.app)
    .put(`/v1/apps/${mainId}/failover`)
    .set(alice.auth)
    .send({ model_ids: [extra.id, first(defaults).id] })
    .expect(200);
  await update({
    id: mainId,
    description: 'Answers tickets',
    weights: { cost: 0.8 },
    policies: { privacy_level: 2, max_cost: 0.5 },
    settings: { instructions: 'Be brief.', temperature: 0.2 },
    has_failover_chain: true,
    benchmark_model_id: first(defaults).id,
  }).expect(200);
  return { mainId, extra };
}

describe('sandbox flow', () => {
  it('creates a sandbox copy, then tracks whether it is up to date', async () => {
    const { mainId, extra } = await configuredSpace();
    const accepted = await request(ctx.app).post(`/v1/apps/${mainId}/sandbox`).set(alice.auth);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ sandbox_status: 'syncing', sandbox: null });

    const outcome = await runQueuedJob(mainId);
    expect(outcome.result).toBe('created');
    const sandboxId = await sandboxIdOf(outcome);

    const main = await getApp(mainId);
    expect(main.body.app.sandbox_status).toBe('up_to_date');
    expect(main.body.app.sandbox_synced_on).not.toBeNull();
    const sandbox = await getApp(sandboxId);
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.app).toMatchObject({
      name: 'Helpdesk (sandbox)',
      sandbox_of: mainId,
      org_id: alice.org_id,
      description: 'Answers tickets',
      has_failover_chain: true,
      benchmark_model_id: first(defaults).id,
      weights: main.body.app.weights,
      policies: main.body.app.policies,
      settings: main.body.app.settings,
      rate_limit: main.body.app.rate_limit,
    });
    expect(sandbox.body.active_models).toBe(main.body.active_models);
    expect(sandbox.body.base_model_settings).toEqual(main.body.base_model_settings);
    expect(sandbox.body.base_model_settings.find((m: { id: string }) => m.id === extra.id).active).toBe(true);
    expect(sandbox.body.failover_models.map((m: { id: string }) => m.id)).toEqual([extra.id, first(defaults).id]);

    const listed = await request(ctx.app).get('/v1/apps?limit=100').set(alice.auth);
    expect(listed.body.data.map((a: { id: string }) => a.id)).not.toContain(sandboxId);

    const changed = await update({ id: mainId, name: 'Helpdesk v2' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ sandbox_status: 'outdated', main: { app: { id: mainId, name: 'Helpdesk v2' } }, sandbox: { app: { id: sandboxId } } });
  });

  it('is idempotent: a second run refreshes the same sandbox', async () => {
    const { mainId } = await configuredSpace();
    const created = await ctx.services.sandboxSync.run({ mainAppId: mainId, requestedBy: 'first@test' });
    await update({ id: mainId, weights: { latency: 0.9 } }).expect(200);
    const again = await ctx.services.sandboxSync.run({ mainAppId: mainId, requestedBy: 'second@test' });
    const third = await ctx.services.sandboxSync.run({ mainAppId: mainId, requestedBy: 'second@test' });
    expect(again).toEqual({ result: 'updated', sandboxId: await sandboxIdOf(created) });
    expect(third).toEqual(again);
    expect(await ctx.services.db.app.count({ where: { sandbox_of: mainId } })).toBe(1);
    const sandbox = await getApp(await sandboxIdOf(created));
    expect(sandbox.body.app).toMatchObject({ weights: { latency: 0.9 }, modified_by: 'second@test', idp_id: 'first@test' });
    expect((await getApp(mainId)).body.app.sandbox_status).toBe('up_to_date');

    // A rejected update of the sandbox changes neither Space, not even the status.
    const rejected = await update({ id: await sandboxIdOf(created), name: 'x', weights: { cost: 2 } });
    expect(rejected.status).toBe(400);
    expect((await getApp(mainId)).body.app.sandbox_status).toBe('up_to_date');
    expect((await getApp(await sandboxIdOf(created))).body.app.name).toBe('Helpdesk (sandbox)');
  });

  it('applies an update of the sandbox to the sandbox only and marks the pair outdated', async () => {
    const { mainId } = await configuredSpace();
    const sandboxId = await sandboxIdOf(await ctx.services.sandboxSync.run({ mainAppId: mainId, requestedBy: 'test' }));
    const mainBefore = await ctx.services.db.app.findUniqueOrThrow({ where: { id: mainId } });

    const res = await update({ id: sandboxId, sandbox_of: mainId, name: 'Trying things', policies: { privacy_level: 3 } });
    expect(res.status).toBe(200);
    expect(res.body.sandbox_status).toBe('outdated');
    expect(res.body.main.app).toMatchObject({ id: mainId, name: 'Helpdesk', policies: { privacy_level: 2 } });
    expect(res.body.sandbox.app).toMatchObject({ id: sandboxId, name: 'Trying things', policies: { privacy_level: 3, max_cost: 0.5 } });

    const mainAfter = await ctx.services.db.app.findUniqueOrThrow({ where: { id: mainId } });
    expect({ ...mainAfter, sandbox_status: mainBefore.sandbox_status }).toEqual(mainBefore);
    expect(mainAfter.sandbox_status).toBe('outdated');

    const moved = await update({ id: sandboxId, sandbox_of: null });
    expect(moved.status).toBe(400);
    expect(moved.body.error).toMatchObject({ code: 'invalid_value', param: 'sandbox_of' });
  });

  it('marks the pair outdated when the models or chain of either change', async () => {
    const { mainId, extra } = await configuredSpace();
    const sandboxId = await sandboxIdOf(await ctx.services.sandboxSync.run({ mainAppId: mainId, requestedBy: 'test' }));
    await request(ctx.app)
      .put(`/v1/apps/${sandboxId}/failover`)
      .set(alice.auth)
      .send({ model_ids: [extra.id] })
      .expect(200);
    expect((await getApp(mainId)).body.app.sandbox_status).toBe('outdated');
    expect((await getApp(mainId)).body.failover_models).toHaveLength(2);

    await ctx.services.sandboxSync.run({ mainAppId: mainId, requestedBy: 'test' });
    expect((await getApp(sandboxId)).body.failover_models).toHaveLength(2);
    await request(ctx.app).put(`/v1/apps/${mainId}/failover`).set(alice.auth).send({ model_ids: [] }).expect(200);
    await request(ctx.app).put(`/v1/apps/${mainId}/models/${extra.id}`).set(alice.auth).send({ active: false }).expect(200);
    const main = await getApp(mainId);
    expect(main.body.app.sandbox_status).toBe('outdated');
    const sandbox = await getApp(sandboxId);
    expect(sandbox.body.base_model_settings.find((m: { id: string }) => m.id === extra.id).active).toBe(true);
  });

  it('skips a job whose main Space is gone or is a sandbox', async () => {
    const { mainId } = await configuredSpace();
    const sandboxId = await sandboxIdOf(await ctx.services.sandboxSync.run({ mainAppId: mainId, requestedBy: 'test' }));
    expect(await ctx.services.sandboxSync.run({ mainAppId: sandboxId, requestedBy: 'test' })).toEqual({ result: 'skipped' });
    expect(await ctx.services.sandboxSync.run({ mainAppId: '00000000-0000-4000-8000-000000000000', requestedBy: 'test' })).toEqual({ result: 'skipped' });
  });
});

describe('a failing sync', () => {
  const failing = () => ({
    run: () => Promise.reject(new Error('database went away')),
    markFailed: (id: string) => ctx.services.sandboxSync.markFailed(id),
  });
  const attempt = (mainAppId: string, attemptsMade: number) => ({ data: { mainAppId, requestedBy: 'test' }, attemptsMade, opts: { attempts: 3 } });

  it('stays syncing while BullMQ has attempts left and becomes failed after the last', async () => {
    const mainId = await newSpace();
    // Set directly, so no queued job exists that a worker elsewhere could complete meanwhile.
    await appStore.setSandboxStatus(ctx.services.db, mainId, { status: 'syncing' });
    await expect(processSandboxSync(failing(), attempt(mainId, 0))).rejects.toThrow('database went away');
    expect((await getApp(mainId)).body.app.sandbox_status).toBe('syncing');
    await expect(processSandboxSync(failing(), attempt(mainId, 2))).rejects.toThrow('database went away');
    expect((await getApp(mainId)).body.app.sandbox_status).toBe('failed');
  });
});

describe('through a BullMQ worker', () => {
  let worker: Worker<SandboxSyncJob, SyncOutcome>;

  beforeAll(() => {
    worker = new Worker(QUEUE_NAMES.sandboxSync, sandboxSyncProcessor(ctx.services), {
      connection: ctx.services.queueConnection,
      prefix: ctx.services.config.redisPrefix,
    });
  });
  afterAll(() => worker.close());

  it('copies the Space when the API queues the job', async () => {
    const { mainId } = await configuredSpace();
    await request(ctx.app).post(`/v1/apps/${mainId}/sandbox`).set(alice.auth).expect(202);
    const deadline = Date.now() + 15_000;
    let status = 'syncing';
    while (status !== 'up_to_date' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await ctx.services.db.app.findUniqueOrThrow({ where: { id: mainId } })).sandbox_status;
    }
    expect(status).toBe('up_to_date');
    const sandbox = await ctx.services.db.app.findUniqueOrThrow({ where: { sandbox_of: mainId } });
    expect((await getApp(sandbox.id)).body.failover_models).toHaveLength(2);
  });
});
