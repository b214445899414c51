import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { permissionsFor } from '../../src/domain/permissions';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';

let ctx: TestContext;
let alice: Tenant;
let bob: Tenant;
let aliceViewer: Tenant;
let aliceOrg: string;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  // Its own Redis prefix, so the wrong keys sent here count against 127.0.0.1 in this file alone, and
  // the failed-authentication throttle of no other test file sees them (nor this file theirs).
  ctx = createTestContext({ redisPrefix: `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}` });
  aliceOrg = `apps-alice-${uniqueSuffix()}`;
  [alice, bob] = await Promise.all([ctx.tenant({ org: aliceOrg }), ctx.tenant()]);
  aliceViewer = await ctx.tenant({ org: aliceOrg, idpId: `viewer@${aliceOrg}`, role: 'viewer' });
});
afterAll(() => ctx.close());

async function createApp(tenant: Tenant, body: object = {}) {
  const res = await request(ctx.app)
    .post('/v1/apps')
    .set(tenant.auth)
    .send({ name: 'Support bot', ...body });
  expect(res.status).toBe(201);
  return res.body as { app: { id: string; name: string } };
}

const update = (tenant: Tenant, body: object) => request(ctx.app).put('/v1/apps/update').set(tenant.auth).send(body);

async function customModel(data: { org_id?: string; app_id?: string; globally_disabled?: boolean; parent_id?: string }) {
  const suffix = uniqueSuffix();
  return ctx.services.db.model.create({ data: { model: `custom-${suffix}`, provider: 'custom', namespace: suffix, is_public: false, ...data } });
}

/** The public catalog as the seed left it, ordered as the API orders it. */
function publicCatalog() {
  return ctx.services.db.model.findMany({
    where: { app_id: null, org_id: null, is_public: true },
    orderBy: [{ provider: 'asc' }, { model: 'asc' }, { id: 'asc' }],
  });
}

describe('POST /v1/apps', () => {
  it('creates a Space with the default models and answers the Space detail', async () => {
    const res = await request(ctx.app)
      .post('/v1/apps')
      .set(alice.auth)
      .send({
        name: 'Docs helper',
        description: 'Answers docs questions',
        app_logo: 'https://example.com/l.png',
        rate_limit: 60,
        weights: { cost: 0.6 },
        policies: { privacy_level: 2 },
      });
    expect(res.status).toBe(201);
    const { app } = res.body;
    expect(app).toMatchObject({
      org_id: alice.org_id,
      idp_id: `owner@${aliceOrg}`,
      modified_by: `owner@${aliceOrg}`,
      name: 'Docs helper',
      description: 'Answers docs questions',
      app_logo: 'https://example.com/l.png',
      rate_limit: 60,
      is_active: true,
      has_failover_chain: false,
      weights: { cost: 0.6, latency: 0.33, quality: 0.34 },
      policies: { privacy_level: 2, max_cost: null, max_switch_model_retries: 2, max_same_model_retries: 2, optimize_internal_requests: 0, prompt_id: null },
      settings: { assistant_id: null, assistant_version_id: null, instructions: null, max_tokens: null, temperature: null },
      sandbox_of: null,
      use_parent_custom_data: false,
      benchmark_model_id: null,
      benchmark_model: null,
      prompt_id: null,
      prompt: null,
      sandbox_status: 'none',
      sandbox_synced_on: null,
    });
    expect(res.body.current_user_permissions).toEqual(permissionsFor('owner', false));
    expect(res.body.failover_models).toEqual([]);
    expect(res.body.custom_model_settings).toEqual([]);
    const catalog = await publicCatalog();
    const defaults = catalog.filter((m) => m.default_active && !m.globally_disabled);
    expect(defaults.length).toBeGreaterThan(0);
    expect(res.body.base_model_settings.map((m: { id: string }) => m.id)).toEqual(catalog.map((m) => m.id));
    const active = res.body.base_model_settings.filter((m: { active: boolean }) => m.active).map((m: { id: string }) => m.id);
    expect(active).toEqual(defaults.map((m) => m.id));
    expect(res.body.active_models).toBe(defaults.length);
  });

  it.each([
    [{ name: 'n'.repeat(100) }, 201, null],
    [{ name: 'n'.repeat(101) }, 400, 'name'],
    [{ name: '' }, 400, 'name'],
    [{ name: 'ok', rate_limit: 0 }, 201, null],
    [{ name: 'ok', rate_limit: -1 }, 400, 'rate_limit'],
    [{ name: 'ok', rate_limit: 1.5 }, 400, 'rate_limit'],
    [{ name: 'ok', weights: { cost: 0, latency: 0, quality: 0 } }, 400, 'weights'],
  ])('POST %j answers %d', async (body, status, param) => {
    const res = await request(ctx.app).post('/v1/apps').set(alice.auth).send(body);
    expect(res.status).toBe(status);
    if (param) expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param });
  });

  it('requires a name and rejects unknown fields', async () => {
    const missing = await request(ctx.app).post('/v1/apps').set(alice.auth).send({});
    expect(missing.body).toEqual({ error: { message: "Missing required field 'name'.", type: 'invalid_request_error', code: 'missing_field', param: 'name' } });
    const unknown = await request(ctx.app).post('/v1/apps').set(alice.auth).send({ name: 'x', sandbox_of: UNKNOWN_ID });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_field', param: 'sandbox_of' });
  });

  it('refuses a viewer key and a missing or wrong key', async () => {
    const viewer = await request(ctx.app).post('/v1/apps').set(aliceViewer.auth).send({ name: 'x' });
    expect(viewer.status).toBe(403);
    expect(viewer.body).toEqual({
      error: { message: "This key lacks the 'apps:create' permission.", type: 'permission_error', code: 'permission_denied', param: null },
    });
    expect((await request(ctx.app).post('/v1/apps').send({ name: 'x' })).status).toBe(401);
    const wrong = await request(ctx.app).get('/v1/apps').set('Authorization', 'Bearer sy-wrong');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
  });
});

describe('GET /v1/apps and GET /v1/apps/{app_id}', () => {
  it("lists the organization's main Spaces newest first, page by page, without sandboxes", async () => {
    const tenant = await ctx.tenant();
    const first = await createApp(tenant, { name: 'first' });
    const second = await createApp(tenant, { name: 'second' });
    await ctx.services.sandboxSync.run({ mainAppId: second.app.id, requestedBy: 'test' });
    const page1 = await request(ctx.app).get('/v1/apps?limit=2').set(tenant.auth);
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ object: 'list', has_more: true, first_id: second.app.id, last_id: first.app.id });
    expect(page1.body.data.map((a: { name: string }) => a.name)).toEqual(['second', 'first']);
    const page2 = await request(ctx.app).get(`/v1/apps?limit=2&after=${first.app.id}`).set(tenant.auth);
    expect(page2.body.data.map((a: { id: string }) => a.id)).toEqual([tenant.app_id]);
    expect(page2.body.has_more).toBe(false);
  });

  it('reads a Space; another organization gets the same 404 as for an unknown or malformed id', async () => {
    const { app } = await createApp(alice);
    const res = await request(ctx.app).get(`/v1/apps/${app.id}`).set(aliceViewer.auth);
    expect(res.status).toBe(200);
    expect(res.body.app.id).toBe(app.id);
    expect(res.body.current_user_permissions).toEqual(permissionsFor('viewer', false));
    const foreign = await request(ctx.app).get(`/v1/apps/${app.id}`).set(bob.auth);
    const unknown = await request(ctx.app).get(`/v1/apps/${UNKNOWN_ID}`).set(bob.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect(foreign.body).toEqual({ error: { message: 'Space not found', type: 'not_found_error', code: 'not_found', param: 'app_id' } });
    expect((await request(ctx.app).get('/v1/apps/not-a-uuid').set(bob.auth)).status).toBe(404);
  });
});

describe('PUT /v1/apps/update', () => {
  it('changes only the fields sent and records who changed them', async () => {
    const { app } = await createApp(alice, { description: 'kept' });
    const res = await update(alice, { id: app.id, name: 'Renamed' });
    expect(res.status).toBe(200);
    expect(res.body.sandbox).toBeNull();
    expect(res.body.sandbox_status).toBe('none');
    expect(res.body.main.app).toMatchObject({ id: app.id, name: 'Renamed', description: 'kept', modified_by: `owner@${aliceOrg}` });
    expect(res.body.main.app.weights).toEqual({ cost: 0.33, latency: 0.33, quality: 0.34 });
  });

  it('merges weights, policies and settings key by key', async () => {
    const { app } = await createApp(alice, { policies: { max_cost: 2 } });
    await update(alice, { id: app.id, weights: { cost: 0.9 }, policies: { privacy_level: 3 }, settings: { temperature: 0.5 } }).expect(200);
    const res = await update(alice, { id: app.id, weights: { quality: 0.1 }, policies: { max_same_model_retries: 0 }, settings: { max_tokens: 256 } });
    expect(res.status).toBe(200);
    expect(res.body.main.app.weights).toEqual({ cost: 0.9, latency: 0.33, quality: 0.1 });
    expect(res.body.main.app.policies).toMatchObject({ privacy_level: 3, max_cost: 2, max_same_model_retries: 0, max_switch_model_retries: 2 });
    expect(res.body.main.app.settings).toMatchObject({ temperature: 0.5, max_tokens: 256, instructions: null });
  });

  it('fills keys missing from a stored object with their defaults', async () => {
    const { app } = await createApp(alice);
    await ctx.services.db.app.update({ where: { id: app.id }, data: { weights: { cost: 1 }, policies: {}, settings: { instructions: 'Be brief.' } } });
    const res = await request(ctx.app).get(`/v1/apps/${app.id}`).set(alice.auth);
    expect(res.body.app.weights).toEqual({ cost: 1, latency: 0.33, quality: 0.34 });
    expect(res.body.app.policies.max_switch_model_retries).toBe(2);
    expect(res.body.app.settings).toEqual({ assistant_id: null, assistant_version_id: null, instructions: 'Be brief.', max_tokens: null, temperature: null });
  });

  it.each([
    [{ weights: { cost: 1 } }, null],
    [{ weights: { cost: 1.01 } }, 'weights.cost'],
    [{ weights: { latency: -0.01 } }, 'weights.latency'],
    [{ weights: { cost: 0, latency: 0, quality: 0 } }, 'weights'],
    [{ weights: { cost: 0, latency: 0, quality: 0.01 } }, null],
    [{ policies: { privacy_level: 3 } }, null],
    [{ policies: { privacy_level: 4 } }, 'policies.privacy_level'],
    [{ policies: { privacy_level: 0 } }, 'policies.privacy_level'],
    [{ policies: { max_same_model_retries: 10 } }, null],
    [{ policies: { max_same_model_retries: 11 } }, 'policies.max_same_model_retries'],
    [{ policies: { max_switch_model_retries: 0 } }, null],
    [{ policies: { max_switch_model_retries: -1 } }, 'policies.max_switch_model_retries'],
    [{ policies: { max_switch_model_retries: 1.5 } }, 'policies.max_switch_model_retries'],
    [{ policies: { max_cost: 0.01 } }, null],
    [{ policies: { max_cost: null } }, null],
    [{ policies: { max_cost: 0 } }, 'policies.max_cost'],
    [{ settings: { max_tokens: 1 } }, null],
    [{ settings: { max_tokens: 0 } }, 'settings.max_tokens'],
    [{ settings: { max_tokens: null } }, null],
    [{ settings: { temperature: 2 } }, null],
    [{ settings: { temperature: 2.01 } }, 'settings.temperature'],
    [{ settings: { temperature: -0.1 } }, 'settings.temperature'],
    [{ name: 'n'.repeat(100) }, null],
    [{ name: 'n'.repeat(101) }, 'name'],
    [{ name: '' }, 'name'],
  ])('%j → %s', async (patch, param) => {
    const { app } = await createApp(alice);
    const res = await update(alice, { id: app.id, ...patch });
    if (param === null) {
      expect(res.status).toBe(200);
      return;
    }
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param });
    expect(res.body.error.message).toContain(param);
  });

  it.each([
    [{ colour: 'red' }, 'colour'],
    [{ policies: { colour: 'red' } }, 'policies.colour'],
    [{ weights: { speed: 1 } }, 'weights.speed'],
    [{ settings: { top_p: 1 } }, 'settings.top_p'],
    // `rate_limit` is an extension field of the update now (test/e2e/keys-api.test.ts); `is_active` is not one.
    [{ is_active: false }, 'is_active'],
  ])('rejects the unknown field in %j', async (patch, param) => {
    const { app } = await createApp(alice);
    const res = await update(alice, { id: app.id, ...patch });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { message: `Unrecognized field '${param}'.`, type: 'invalid_request_error', code: 'unknown_field', param } });
  });

  it('requires the id', async () => {
    const res = await update(alice, { name: 'x' });
    expect(res.body).toEqual({ error: { message: "Missing required field 'id'.", type: 'invalid_request_error', code: 'missing_field', param: 'id' } });
  });

  it('changes no row when any part of the request is rejected', async () => {
    const { app } = await createApp(alice);
    const before = await ctx.services.db.app.findUniqueOrThrow({ where: { id: app.id } });
    const res = await update(alice, { id: app.id, name: 'Changed', weights: { cost: 0.7 }, benchmark_model_id: UNKNOWN_ID });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('benchmark_model_id');
    expect(await ctx.services.db.app.findUniqueOrThrow({ where: { id: app.id } })).toEqual(before);
  });

  it('sets the benchmark model only to a model available to the Space', async () => {
    const { app } = await createApp(alice);
    const [catalogModel] = await publicCatalog();
    if (!catalogModel) throw new Error('the catalog is empty');
    const ok = await update(alice, { id: app.id, benchmark_model_id: catalogModel.id });
    expect(ok.status).toBe(200);
    expect(ok.body.main.app.benchmark_model).toMatchObject({ id: catalogModel.id, model: catalogModel.model, parent: {} });
    const own = await customModel({ org_id: alice.org_id });
    expect((await update(alice, { id: app.id, benchmark_model_id: own.id })).status).toBe(200);
    const foreign = await customModel({ org_id: bob.org_id });
    const rejected = await update(alice, { id: app.id, benchmark_model_id: foreign.id });
    expect(rejected.body).toEqual({
      error: {
        message: "Invalid value for 'benchmark_model_id': no model with this id is available to this Space.",
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'benchmark_model_id',
      },
    });
    const cleared = await update(alice, { id: app.id, benchmark_model_id: null });
    expect(cleared.body.main.app).toMatchObject({ benchmark_model_id: null, benchmark_model: null });
  });

  it("accepts the organization's own and approved public prompts as policies.prompt_id", async () => {
    const { app } = await createApp(alice);
    const own = await request(ctx.app).post('/v1/prompts').set(alice.auth).send({ prompt: 'Be kind.', title: 'Kind', description: 'Kindness' });
    const res = await update(alice, { id: app.id, policies: { prompt_id: own.body.id } });
    expect(res.status).toBe(200);
    expect(res.body.main.app).toMatchObject({ prompt_id: own.body.id, policies: { prompt_id: own.body.id }, prompt: { id: own.body.id, title: 'Kind' } });
    const bobsDraft = await request(ctx.app).post('/v1/prompts').set(bob.auth).send({ prompt: 'Secret.', title: 'Bob', description: 'Bob only' });
    const rejected = await update(alice, { id: app.id, policies: { prompt_id: bobsDraft.body.id } });
    expect(rejected.status).toBe(400);
    expect(rejected.body.error).toMatchObject({ code: 'invalid_value', param: 'policies.prompt_id' });
    await ctx.services.db.prompt.update({
      where: { id: bobsDraft.body.id },
      data: { published_on: new Date(), reviewed_on: new Date(), approved_on: new Date() },
    });
    expect((await update(alice, { id: app.id, policies: { prompt_id: bobsDraft.body.id } })).status).toBe(200);
    const cleared = await update(alice, { id: app.id, policies: { prompt_id: null } });
    expect(cleared.body.main.app).toMatchObject({ prompt_id: null, prompt: null });
  });

  it('accepts only assistants and versions of this Space, and a version of the named assistant', async () => {
    const { app } = await createApp(alice);
    const other = await createApp(alice);
    const db = ctx.services.db;
    const mine = await db.assistant.create({ data: { app_id: app.id, slug: `a-${randomUUID()}`, name: 'Mine' } });
    const mine2 = await db.assistant.create({ data: { app_id: app.id, slug: `b-${randomUUID()}`, name: 'Mine too' } });
    const theirs = await db.assistant.create({ data: { app_id: other.app.id, slug: `c-${randomUUID()}`, name: 'Theirs' } });
    const v1 = await db.assistantVersion.create({ data: { assistant_id: mine.id, version: 1 } });
    const ok = await update(alice, { id: app.id, settings: { assistant_id: mine.id, assistant_version_id: v1.id } });
    expect(ok.status).toBe(200);
    expect(ok.body.main.app.settings).toMatchObject({ assistant_id: mine.id, assistant_version_id: v1.id });
    const foreign = await update(alice, { id: app.id, settings: { assistant_id: theirs.id } });
    expect(foreign.body.error).toMatchObject({ code: 'invalid_value', param: 'settings.assistant_id' });
    const mismatch = await update(alice, { id: app.id, settings: { assistant_id: mine2.id } });
    expect(mismatch.body.error).toMatchObject({ code: 'invalid_value', param: 'settings.assistant_version_id' });
    const unknownVersion = await update(alice, { id: app.id, settings: { assistant_version_id: UNKNOWN_ID } });
    expect(unknownVersion.body.error).toMatchObject({ code: 'invalid_value', param: 'settings.assistant_version_id' });
    expect((await update(alice, { id: app.id, settings: { assistant_id: mine2.id, assistant_version_id: null } })).status).toBe(200);
  });

  it('does not let the sandbox link change', async () => {
    const { app } = await createApp(alice);
    expect((await update(alice, { id: app.id, sandbox_of: null })).status).toBe(200);
    const res = await update(alice, { id: app.id, sandbox_of: alice.app_id });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_value', param: 'sandbox_of' });
  });

  it('answers 404 for another organization exactly as for an unknown id, and 403 to a viewer', async () => {
    const { app } = await createApp(alice);
    const foreign = await update(bob, { id: app.id, name: 'x' });
    const unknown = await update(bob, { id: UNKNOWN_ID, name: 'x' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect(foreign.body.error).toMatchObject({ code: 'not_found', param: 'id' });
    const viewer = await update(aliceViewer, { id: app.id, name: 'x' });
    expect(viewer.status).toBe(403);
    expect(viewer.body.error).toMatchObject({ code: 'permission_denied', message: "This key lacks the 'apps:update' permission." });
  });
});

describe('POST /v1/apps/{app_id}/sandbox', () => {
  it('marks the main Space syncing and queues a sandbox-sync job', async () => {
    const { app } = await createApp(alice);
    const res = await request(ctx.app).post(`/v1/apps/${app.id}/sandbox`).set(alice.auth);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ sandbox_status: 'syncing', sandbox: null, main: { app: { id: app.id, sandbox_status: 'syncing' } } });
    const jobs = await ctx.services.queues.sandboxSync.getJobs(['waiting', 'active', 'completed', 'delayed']);
    expect(jobs.some((job) => job.data.mainAppId === app.id && job.data.requestedBy === `owner@${aliceOrg}`)).toBe(true);
  });

  it('refuses a sandbox, another organization and a viewer', async () => {
    const { app } = await createApp(alice);
    const sync = await ctx.services.sandboxSync.run({ mainAppId: app.id, requestedBy: 'test' });
    if (sync.result === 'skipped') throw new Error('expected a sandbox');
    const ofSandbox = await request(ctx.app).post(`/v1/apps/${sync.sandboxId}/sandbox`).set(alice.auth);
    expect(ofSandbox.status).toBe(400);
    expect(ofSandbox.body.error).toMatchObject({ code: 'invalid_request', param: 'app_id' });
    const foreign = await request(ctx.app).post(`/v1/apps/${app.id}/sandbox`).set(bob.auth);
    const unknown = await request(ctx.app).post(`/v1/apps/${UNKNOWN_ID}/sandbox`).set(bob.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect((await request(ctx.app).post(`/v1/apps/${app.id}/sandbox`).set(aliceViewer.auth)).status).toBe(403);
  });
});
