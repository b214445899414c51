import request from 'supertest';
import type { Model } from '../../src/generated/prisma/client';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';

let ctx: TestContext;
let alice: Tenant;
let bob: Tenant;
let aliceViewer: Tenant;
/** Public catalog models that new Spaces start with, and ones they don't. */
let defaults: Model[];
let optional: Model[];

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  ctx = createTestContext();
  const org = `models-alice-${uniqueSuffix()}`;
  [alice, bob] = await Promise.all([ctx.tenant({ org }), ctx.tenant()]);
  aliceViewer = await ctx.tenant({ org, idpId: `viewer@${org}`, role: 'viewer' });
  const catalog = await ctx.services.db.model.findMany({ where: { app_id: null, org_id: null, is_public: true, globally_disabled: false } });
  defaults = catalog.filter((m) => m.default_active);
  optional = catalog.filter((m) => !m.default_active);
  if (defaults.length < 2 || optional.length < 2) throw new Error('these tests need two default and two optional catalog models');
});
afterAll(() => ctx.close());

function nth(models: Model[], index: number): Model {
  const model = models[index];
  if (!model) throw new Error(`no model at ${index}`);
  return model;
}

async function newSpace(tenant: Tenant = alice): Promise<string> {
  const res = await request(ctx.app).post('/v1/apps').set(tenant.auth).send({ name: 'models' });
  expect(res.status).toBe(201);
  return res.body.app.id as string;
}

async function customModel(data: Partial<Pick<Model, 'org_id' | 'app_id' | 'globally_disabled' | 'parent_id'>>) {
  const suffix = uniqueSuffix();
  return ctx.services.db.model.create({ data: { model: `custom-${suffix}`, provider: 'custom', namespace: suffix, is_public: false, ...data } });
}

const setActive = (tenant: Tenant, path: { appId: string; modelId: string }, body: object) =>
  request(ctx.app).put(`/v1/apps/${path.appId}/models/${path.modelId}`).set(tenant.auth).send(body);
const setChain = (tenant: Tenant, appId: string, modelIds: string[]) =>
  request(ctx.app).put(`/v1/apps/${appId}/failover`).set(tenant.auth).send({ model_ids: modelIds });

describe('GET /v1/apps/{app_id}/models', () => {
  it('lists every public model with its state, the custom models and the chain', async () => {
    const appId = await newSpace();
    const own = await customModel({ org_id: alice.org_id });
    const ofSpace = await customModel({ app_id: appId });
    await customModel({ app_id: alice.app_id });
    await customModel({ org_id: bob.org_id });
    const res = await request(ctx.app).get(`/v1/apps/${appId}/models`).set(aliceViewer.auth);
    expect(res.status).toBe(200);
    expect(res.body.active_models).toBe(defaults.length);
    expect(res.body.failover_models).toEqual([]);
    const base = res.body.base_model_settings as Array<{ provider: string; model: string; active: boolean; id: string }>;
    const sorted = [...base].sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model));
    expect(base.map((m) => m.id)).toEqual(sorted.map((m) => m.id));
    expect(
      base
        .filter((m) => m.active)
        .map((m) => m.id)
        .sort(),
    ).toEqual(defaults.map((m) => m.id).sort());
    expect(res.body.custom_model_settings.map((m: { id: string }) => m.id).sort()).toEqual([own.id, ofSpace.id].sort());
    expect(res.body.custom_model_settings.every((m: { active: boolean }) => !m.active)).toBe(true);
  });

  it('presents ModelActiveForApp with the full model, its parent and the flags', async () => {
    const appId = await newSpace();
    const parent = nth(defaults, 0);
    const child = await customModel({ org_id: alice.org_id, parent_id: parent.id });
    const res = await request(ctx.app).get(`/v1/apps/${appId}/models`).set(alice.auth);
    const entry = res.body.custom_model_settings.find((m: { id: string }) => m.id === child.id);
    expect(entry).toMatchObject({
      id: child.id,
      model: child.model,
      provider: 'custom',
      parent_id: parent.id,
      prompt_id: null,
      active: false,
      globally_disabled: false,
    });
    expect(entry.parent).toMatchObject({ id: child.id, org_id: alice.org_id, app_id: null, is_public: false, price_unit: 'tokens', api_target: '' });
    expect(entry.parent.parent).toMatchObject({ id: parent.id, model: parent.model, provider: parent.provider });
    expect(entry.parent.parent).not.toHaveProperty('parent');
    expect(entry.parent).not.toHaveProperty('quality_profile');
    expect(entry.parent).not.toHaveProperty('globally_disabled');
    const plain = res.body.base_model_settings.find((m: { id: string }) => m.id === parent.id);
    expect(plain.parent).toMatchObject({ id: parent.id, parent: parent.parent_id ? expect.any(Object) : {} });
  });

  it('answers 404 for another organization exactly as for an unknown Space', async () => {
    const appId = await newSpace();
    const foreign = await request(ctx.app).get(`/v1/apps/${appId}/models`).set(bob.auth);
    const unknown = await request(ctx.app).get(`/v1/apps/${UNKNOWN_ID}/models`).set(bob.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect((await request(ctx.app).get(`/v1/apps/${appId}/models`)).status).toBe(401);
  });
});

describe('PUT /v1/apps/{app_id}/models/{model_id}', () => {
  it('switches a model on and off', async () => {
    const appId = await newSpace();
    const model = nth(optional, 0);
    const on = await setActive(alice, { appId, modelId: model.id }, { active: true });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({
      id: model.id,
      model: model.model,
      provider: model.provider,
      active: true,
      globally_disabled: false,
      parent: { id: model.id },
    });
    const listed = await request(ctx.app).get(`/v1/apps/${appId}/models`).set(alice.auth);
    expect(listed.body.active_models).toBe(defaults.length + 1);
    const off = await setActive(alice, { appId, modelId: nth(defaults, 0).id }, { active: false });
    expect(off.body.active).toBe(false);
    const after = await request(ctx.app).get(`/v1/apps/${appId}/models`).set(alice.auth);
    expect(after.body.active_models).toBe(defaults.length);
  });

  it("switches on the organization's and the Space's custom models, not another Space's", async () => {
    const appId = await newSpace();
    const own = await customModel({ org_id: alice.org_id });
    const ofSpace = await customModel({ app_id: appId });
    const ofOtherSpace = await customModel({ app_id: alice.app_id });
    expect((await setActive(alice, { appId, modelId: own.id }, { active: true })).status).toBe(200);
    expect((await setActive(alice, { appId, modelId: ofSpace.id }, { active: true })).status).toBe(200);
    const other = await setActive(alice, { appId, modelId: ofOtherSpace.id }, { active: true });
    expect(other.status).toBe(404);
    const res = await request(ctx.app).get(`/v1/apps/${appId}/models`).set(alice.auth);
    expect(res.body.active_models).toBe(defaults.length + 2);
  });

  it('answers the same 404 for an invisible model as for an unknown one', async () => {
    const appId = await newSpace();
    const foreign = await customModel({ org_id: bob.org_id });
    const invisible = await setActive(alice, { appId, modelId: foreign.id }, { active: true });
    const unknown = await setActive(alice, { appId, modelId: UNKNOWN_ID }, { active: true });
    expect(invisible.status).toBe(404);
    expect(invisible.body).toEqual(unknown.body);
    expect(invisible.body).toEqual({ error: { message: 'Model not found', type: 'not_found_error', code: 'not_found', param: 'model_id' } });
    const foreignSpace = await setActive(bob, { appId, modelId: nth(optional, 0).id }, { active: true });
    expect(foreignSpace.body.error).toMatchObject({ code: 'not_found', param: 'app_id' });
  });

  it('refuses to switch on a globally disabled model, and lets it be switched off', async () => {
    const appId = await newSpace();
    const disabled = await customModel({ org_id: alice.org_id, globally_disabled: true });
    const res = await setActive(alice, { appId, modelId: disabled.id }, { active: true });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: {
        message: `Model '${disabled.model}' is globally disabled by a service owner and cannot be activated.`,
        type: 'conflict_error',
        code: 'invalid_state_transition',
        param: 'active',
      },
    });
    const off = await setActive(alice, { appId, modelId: disabled.id }, { active: false });
    expect(off.body).toMatchObject({ active: false, globally_disabled: true });
  });

  it('validates the body strictly and needs models:update', async () => {
    const appId = await newSpace();
    const model = nth(optional, 0);
    const extra = await setActive(alice, { appId, modelId: model.id }, { active: true, priority: 1 });
    expect(extra.body.error).toMatchObject({ code: 'unknown_field', param: 'priority' });
    const wrongType = await setActive(alice, { appId, modelId: model.id }, { active: 'yes' });
    expect(wrongType.body.error).toMatchObject({ code: 'invalid_value', param: 'active' });
    const missing = await setActive(alice, { appId, modelId: model.id }, {});
    expect(missing.body.error).toMatchObject({ code: 'missing_field', param: 'active' });
    const viewer = await setActive(aliceViewer, { appId, modelId: model.id }, { active: true });
    expect(viewer.status).toBe(403);
    expect(viewer.body.error.message).toBe("This key lacks the 'models:update' permission.");
  });
});

describe('PUT /v1/apps/{app_id}/failover', () => {
  it('replaces the chain in order and leaves has_failover_chain alone', async () => {
    const appId = await newSpace();
    const [first, second] = [nth(defaults, 1), nth(defaults, 0)];
    const res = await setChain(alice, appId, [first.id, second.id]);
    expect(res.status).toBe(200);
    expect(res.body.failover_models.map((m: { id: string }) => m.id)).toEqual([first.id, second.id]);
    expect(res.body.failover_models[0]).toMatchObject({ model: first.model, provider: first.provider });
    const detail = await request(ctx.app).get(`/v1/apps/${appId}`).set(alice.auth);
    expect(detail.body.failover_models.map((m: { id: string }) => m.id)).toEqual([first.id, second.id]);
    expect(detail.body.app.has_failover_chain).toBe(false);
    const reordered = await setChain(alice, appId, [second.id]);
    expect(reordered.body.failover_models.map((m: { id: string }) => m.id)).toEqual([second.id]);
    const cleared = await setChain(alice, appId, []);
    expect(cleared.body).toEqual({ failover_models: [] });
  });

  it('names the offending link: unknown, invisible, inactive, globally disabled or repeated', async () => {
    const appId = await newSpace();
    const active = nth(defaults, 0).id;
    const foreign = await customModel({ org_id: bob.org_id });
    const disabled = await customModel({ org_id: alice.org_id, globally_disabled: true });
    await ctx.services.db.appModel.create({ data: { app_id: appId, model_id: disabled.id, active: true } });
    const cases: Array<[string[], string, string]> = [
      [[active, UNKNOWN_ID], 'model_ids[1]', 'no model with this id is available to this Space'],
      [[foreign.id], 'model_ids[0]', 'no model with this id is available to this Space'],
      [[active, nth(optional, 0).id], 'model_ids[1]', 'is not active in this Space'],
      [[disabled.id], 'model_ids[0]', 'is globally disabled'],
      [[active, active], 'model_ids[1]', 'already earlier in the chain'],
    ];
    for (const [ids, param, message] of cases) {
      const res = await setChain(alice, appId, ids);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param });
      expect(res.body.error.message).toContain(message);
    }
    const detail = await request(ctx.app).get(`/v1/apps/${appId}/models`).set(alice.auth);
    expect(detail.body.failover_models).toEqual([]);
  });

  it('takes at most 10 links', async () => {
    const appId = await newSpace();
    const models = await Promise.all(Array.from({ length: 11 }, () => customModel({ org_id: alice.org_id })));
    for (const model of models) await setActive(alice, { appId, modelId: model.id }, { active: true }).expect(200);
    const ids = models.map((m) => m.id);
    expect((await setChain(alice, appId, ids.slice(0, 10))).status).toBe(200);
    const tooMany = await setChain(alice, appId, ids);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: 'invalid_value', param: 'model_ids' });
  });

  it('will not switch off a model in the chain', async () => {
    const appId = await newSpace();
    const model = nth(defaults, 0);
    await setChain(alice, appId, [model.id]).expect(200);
    const res = await setActive(alice, { appId, modelId: model.id }, { active: false });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'invalid_state_transition', param: 'active' });
    expect(res.body.error.message).toContain('failover chain at position 0');
  });

  it('needs models:update and hides other organizations', async () => {
    const appId = await newSpace();
    expect((await setChain(aliceViewer, appId, [])).status).toBe(403);
    const foreign = await setChain(bob, appId, []);
    const unknown = await setChain(bob, UNKNOWN_ID, []);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
  });
});
