import request from 'supertest';
import type { Prisma } from '../../src/generated/prisma/client';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';

let ctx: TestContext;
let alice: Tenant;
let bob: Tenant;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  ctx = createTestContext();
  [alice, bob] = await Promise.all([ctx.tenant(), ctx.tenant()]);
});
afterAll(() => ctx.close());

let clock = Date.now();

/** Logs are written by the completion pipeline; here they are inserted directly, each a millisecond after the last. */
async function insertLog(tenant: Tenant, data: Partial<Prisma.LogUncheckedCreateInput> = {}) {
  clock += 1;
  return ctx.services.db.log.create({
    data: { org_id: tenant.org_id, app_id: tenant.app_id, timestamp: BigInt(clock), added_on: new Date(clock), ...data },
  });
}

const getLog = (tenant: Tenant, id: string, query = '') => request(ctx.app).get(`/v1/logs/${id}${query}`).set(tenant.auth);
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((log) => log.id);

describe('GET /v1/logs/{log_id}', () => {
  it('presents every field of a minimal row with the contract defaults', async () => {
    const timestamp = BigInt(Date.now());
    const row = await ctx.services.db.log.create({ data: { org_id: alice.org_id, app_id: alice.app_id, timestamp } });
    const res = await getLog(alice, row.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: row.id,
      conversation_id: null,
      parent_request_id: null,
      parent_id: null,
      app_id: alice.app_id,
      idp_id: null,
      response: {},
      timestamp: Number(timestamp),
      good_answer: null,
      feedback: '',
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      prompt_tokens_cost: 0,
      completion_tokens_cost: 0,
      total_tokens_cost: 0,
      prompt_tokens_cost_savings: 0,
      completion_tokens_cost_savings: 0,
      total_tokens_cost_savings: 0,
      costs_incurred: true,
      namespace: null,
      payload: {},
      privacy_level: 1,
      prompt: null,
      request_type: 'chat_completions',
      response_text: '',
      status_code: -1,
      is_test: false,
      added_on: row.added_on?.toISOString(),
      latency: null,
      is_saved_for_later: false,
      comment_count: 0,
      parent: null,
      children: null,
      model: null,
      collections: null,
      labels: {},
      step: null,
    });
    expect(typeof res.body.timestamp).toBe('number');
  });

  it('presents stored values, the model that answered and the stored JSON as is', async () => {
    const model = await ctx.services.db.model.findFirstOrThrow({ where: { model: 'gpt-4o-mini', app_id: null, org_id: null } });
    const response = { id: 'chatcmpl-1', object: 'text_completion', model: 'gpt-4o-mini', created: 1, choices: [], usage: { total_tokens: 12 } };
    const payload = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], stream: false };
    const row = await insertLog(alice, {
      model_id: model.id,
      idp_id: 'someone',
      response,
      payload,
      prompt: 'Hi',
      response_text: 'Hello',
      namespace: 'gpt-4o-mini',
      prompt_tokens: 5,
      completion_tokens: 7,
      total_tokens: 12,
      total_tokens_cost: 0.0001,
      total_tokens_cost_savings: 0.002,
      status_code: 200,
      latency: 321.5,
      privacy_level: 2,
      request_type: 'completions',
      labels: { team: 'search' },
      collections: [{ id: 'c1' }],
      good_answer: false,
      feedback: null,
    });
    const res = await getLog(alice, row.id);
    expect(res.body).toMatchObject({
      idp_id: 'someone',
      response,
      payload,
      prompt: 'Hi',
      response_text: 'Hello',
      total_tokens: 12,
      total_tokens_cost: 0.0001,
      total_tokens_cost_savings: 0.002,
      status_code: 200,
      latency: 321.5,
      privacy_level: 2,
      request_type: 'completions',
      labels: { team: 'search' },
      collections: [{ id: 'c1' }],
      good_answer: false,
      feedback: null,
    });
    expect(res.body.model).toMatchObject({ id: model.id, model: 'gpt-4o-mini', provider: 'openai', namespace: 'gpt-4o-mini', parent: {} });
  });

  it('presents the parent shallowly, and the children only when asked, oldest first', async () => {
    const parent = await insertLog(alice);
    const later = await insertLog(alice, { parent_id: parent.id, timestamp: BigInt(clock + 1000) });
    const earlier = await insertLog(alice, { parent_id: parent.id, timestamp: BigInt(clock - 1000) });
    await insertLog(alice, { parent_id: parent.id, privacy_level: 3 });

    const child = await getLog(alice, later.id);
    expect(child.body.parent_id).toBe(parent.id);
    expect(child.body.parent).toMatchObject({ id: parent.id, parent_id: null });
    expect(child.body.parent).not.toHaveProperty('parent');
    expect(child.body.parent).not.toHaveProperty('children');

    expect((await getLog(alice, parent.id)).body.children).toBeNull();
    const withChildren = await getLog(alice, parent.id, '?include=children');
    expect(ids({ data: withChildren.body.children })).toEqual([earlier.id, later.id]);
    expect(withChildren.body.children[0]).not.toHaveProperty('children');
    expect(withChildren.body.parent).toBeNull();

    const badInclude = await getLog(alice, parent.id, '?include=everything');
    expect(badInclude.status).toBe(400);
    expect(badInclude.body.error.param).toBe('include');
  });

  it('answers 404 for a privacy level 3 log exactly as for an unknown id', async () => {
    const hidden = await insertLog(alice, { privacy_level: 3 });
    const res = await getLog(alice, hidden.id);
    const unknown = await getLog(alice, UNKNOWN_ID);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(unknown.body);
    expect(res.body).toEqual({ error: { message: 'Log not found', type: 'not_found_error', code: 'not_found', param: 'log_id' } });
  });

  it("answers 404 for another organization's log exactly as for an unknown id", async () => {
    const foreign = await insertLog(bob);
    const res = await getLog(alice, foreign.id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual((await getLog(alice, UNKNOWN_ID)).body);
    expect((await getLog(bob, foreign.id)).status).toBe(200);
  });
});

describe('GET /v1/logs', () => {
  it('lists top-level logs newest first, page by page, without hidden ones', async () => {
    const space = await ctx.tenant();
    const logs = [];
    for (let i = 0; i < 4; i += 1) logs.push(await insertLog(space));
    const child = await insertLog(space, { parent_id: logs[0]?.id });
    await insertLog(space, { privacy_level: 3 });
    await insertLog(alice);

    const first = await request(ctx.app).get('/v1/logs?limit=3').set(space.auth);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(ids(first.body)).toEqual([logs[3]?.id, logs[2]?.id, logs[1]?.id]);
    expect(first.body.data[0].children).toBeNull();
    const second = await request(ctx.app).get(`/v1/logs?limit=3&after=${first.body.last_id}`).set(space.auth);
    expect(second.body).toMatchObject({ has_more: false });
    expect(ids(second.body)).toEqual([logs[0]?.id]);

    const all = await request(ctx.app).get('/v1/logs?include_children=true').set(space.auth);
    expect(ids(all.body)).toEqual([child.id, logs[3]?.id, logs[2]?.id, logs[1]?.id, logs[0]?.id]);
    expect(all.body.data[0].parent).toMatchObject({ id: logs[0]?.id });
  });

  it('pages through logs without added_on after the dated ones', async () => {
    const space = await ctx.tenant();
    const older = await insertLog(space);
    const newer = await insertLog(space);
    const undated = [await insertLog(space, { added_on: null }), await insertLog(space, { added_on: null })].sort((a, b) => (a.id < b.id ? 1 : -1));
    const seen: string[] = [];
    let after = '';
    for (let page = 0; page < 5; page += 1) {
      const res = await request(ctx.app).get(`/v1/logs?limit=1${after}`).set(space.auth);
      seen.push(...ids(res.body));
      if (!res.body.has_more) break;
      after = `&after=${res.body.last_id}`;
    }
    expect(seen).toEqual([newer.id, older.id, undated[0]?.id, undated[1]?.id]);
  });

  it('filters by Space, conversation and rating', async () => {
    const space = await ctx.tenant();
    const conversation = await request(ctx.app).post(`/v1/apps/${space.app_id}/conversations/create`).set(space.auth).send({});
    const inConversation = await insertLog(space, { conversation_id: conversation.body.id, good_answer: true });
    const bad = await insertLog(space, { good_answer: false });
    const unrated = await insertLog(space, { app_id: null });

    const list = (query: string) => request(ctx.app).get(`/v1/logs?${query}`).set(space.auth);
    expect(ids((await list(`app_id=${space.app_id}`)).body)).toEqual([bad.id, inConversation.id]);
    expect(ids((await list(`conversation_id=${conversation.body.id}`)).body)).toEqual([inConversation.id]);
    expect(ids((await list('good_answer=true')).body)).toEqual([inConversation.id]);
    expect(ids((await list('good_answer=false')).body)).toEqual([bad.id]);
    expect(ids((await list('')).body)).toEqual([unrated.id, bad.id, inConversation.id]);

    const badFlag = await list('good_answer=maybe');
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.error).toMatchObject({ code: 'invalid_value', param: 'good_answer' });
  });

  it("answers 404 for another organization's Space as a filter", async () => {
    const foreign = await request(ctx.app).get(`/v1/logs?app_id=${bob.app_id}`).set(alice.auth);
    const unknown = await request(ctx.app).get(`/v1/logs?app_id=${UNKNOWN_ID}`).set(alice.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
  });

  it("does not accept another organization's log as a cursor", async () => {
    const foreign = await insertLog(bob);
    const res = await request(ctx.app).get(`/v1/logs?after=${foreign.id}`).set(alice.auth);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('after');
  });
});

describe('PUT /v1/logs/{log_id}/rating and /saved', () => {
  it('rates a log and keeps the feedback when it is left out', async () => {
    const row = await insertLog(alice);
    const rated = await request(ctx.app).put(`/v1/logs/${row.id}/rating`).set(alice.auth).send({ good_answer: true, feedback: 'Spot on' });
    expect(rated.status).toBe(200);
    expect(rated.body).toMatchObject({ id: row.id, good_answer: true, feedback: 'Spot on', children: null });

    const cleared = await request(ctx.app).put(`/v1/logs/${row.id}/rating`).set(alice.auth).send({ good_answer: null });
    expect(cleared.body).toMatchObject({ good_answer: null, feedback: 'Spot on' });
    expect((await getLog(alice, row.id)).body).toMatchObject({ good_answer: null, feedback: 'Spot on' });
  });

  it.each([
    { label: 'without good_answer', body: {}, code: 'missing_field', param: 'good_answer' },
    { label: 'with a string good_answer', body: { good_answer: 'yes' }, code: 'invalid_value', param: 'good_answer' },
    { label: 'with feedback over 5000 characters', body: { good_answer: true, feedback: 'f'.repeat(5001) }, code: 'invalid_value', param: 'feedback' },
    { label: 'with an unknown field', body: { good_answer: true, stars: 5 }, code: 'unknown_field', param: 'stars' },
  ])('rejects a rating $label', async ({ body, code, param }) => {
    const row = await insertLog(alice);
    const res = await request(ctx.app).put(`/v1/logs/${row.id}/rating`).set(alice.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('accepts feedback of 5000 characters', async () => {
    const row = await insertLog(alice);
    const res = await request(ctx.app)
      .put(`/v1/logs/${row.id}/rating`)
      .set(alice.auth)
      .send({ good_answer: false, feedback: 'f'.repeat(5000) });
    expect(res.status).toBe(200);
  });

  it("answers 404 for rating another organization's or a hidden log", async () => {
    const foreign = await insertLog(bob);
    const hidden = await insertLog(alice, { privacy_level: 3 });
    for (const id of [foreign.id, hidden.id]) {
      const res = await request(ctx.app).put(`/v1/logs/${id}/rating`).set(alice.auth).send({ good_answer: true });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found', param: 'log_id' });
    }
    expect((await ctx.services.db.log.findUniqueOrThrow({ where: { id: foreign.id } })).good_answer).toBeNull();
  });

  it('requires logs:rate', async () => {
    const viewer = await ctx.tenant({ role: 'viewer' });
    const row = await insertLog(viewer);
    expect((await request(ctx.app).put(`/v1/logs/${row.id}/rating`).set(viewer.auth).send({ good_answer: true })).status).toBe(403);
    expect((await getLog(viewer, row.id)).status).toBe(200);
  });

  it('marks a log saved for later and unmarks it', async () => {
    const row = await insertLog(alice);
    const saved = await request(ctx.app).put(`/v1/logs/${row.id}/saved`).set(alice.auth).send({ is_saved_for_later: true });
    expect(saved.status).toBe(200);
    expect(saved.body.is_saved_for_later).toBe(true);
    const unsaved = await request(ctx.app).put(`/v1/logs/${row.id}/saved`).set(alice.auth).send({ is_saved_for_later: false });
    expect(unsaved.body.is_saved_for_later).toBe(false);
    expect((await request(ctx.app).put(`/v1/logs/${row.id}/saved`).set(alice.auth).send({})).body.error.code).toBe('missing_field');
  });
});
