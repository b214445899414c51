import request from 'supertest';
import type { Model, Prisma } from '../../src/generated/prisma/client';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';

/**
 * The aggregates the console's charts read (`GET /v1/logs/summary`) and the list's new filters
 * (`created_after`, `created_before`, `model`, `status`), through the HTTP API with exact bodies.
 */

let ctx: TestContext;
let alice: Tenant;
let bob: Tenant;
let aliceSecondApp: string;
let mini: Model;
let other: Model;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const DAY1 = '2026-03-01';
const DAY2 = '2026-03-02';
const at = (iso: string) => new Date(iso);

function insertLog(tenant: Tenant, data: Partial<Prisma.LogUncheckedCreateInput> & { added_on: Date }) {
  return ctx.services.db.log.create({
    data: { org_id: tenant.org_id, app_id: tenant.app_id, timestamp: BigInt(data.added_on.getTime()), status_code: 200, ...data },
  });
}

const summary = (tenant: Tenant, query: string) => request(ctx.app).get(`/v1/logs/summary?${query}`).set(tenant.auth);
const list = (tenant: Tenant, query: string) => request(ctx.app).get(`/v1/logs?${query}`).set(tenant.auth);
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((log) => log.id);

const logIds = { a1: '', a2: '', a3: '', a4: '', child: '' };

beforeAll(async () => {
  ctx = createTestContext();
  [alice, bob] = await Promise.all([ctx.tenant(), ctx.tenant()]);
  mini = await ctx.services.db.model.findFirstOrThrow({ where: { model: 'gpt-4o-mini', app_id: null, org_id: null } });
  other = await ctx.services.db.model.findFirstOrThrow({ where: { model: { not: 'gpt-4o-mini' }, app_id: null, org_id: null }, orderBy: { model: 'asc' } });
  const created = await request(ctx.app).post('/v1/apps').set(alice.auth).send({ name: 'Second' });
  aliceSecondApp = created.body.app.id;

  // Costs are binary fractions so sums are exact.
  const a1 = await insertLog(alice, {
    added_on: at(`${DAY1}T08:00:00Z`),
    model_id: mini.id,
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    total_tokens_cost: 0.5,
    total_tokens_cost_savings: 0.25,
  });
  const a2 = await insertLog(alice, {
    added_on: at(`${DAY1}T20:00:00Z`),
    model_id: other.id,
    prompt_tokens: 20,
    completion_tokens: 10,
    total_tokens: 30,
    total_tokens_cost: 1,
    total_tokens_cost_savings: 0,
    status_code: 502,
  });
  const a3 = await insertLog(alice, {
    added_on: at(`${DAY2}T00:00:00Z`),
    model_id: mini.id,
    prompt_tokens: 4,
    completion_tokens: 4,
    total_tokens: 8,
    total_tokens_cost: 0.125,
    total_tokens_cost_savings: 0.5,
  });
  const a4 = await insertLog(alice, {
    added_on: at(`${DAY2}T12:00:00Z`),
    app_id: aliceSecondApp,
    model_id: mini.id,
    prompt_tokens: 1,
    completion_tokens: 1,
    total_tokens: 2,
    total_tokens_cost: 0.25,
    total_tokens_cost_savings: 0.125,
    status_code: -1,
  });
  // A sub-request: its cost is already in its parent's total, so the summary leaves it out.
  const child = await insertLog(alice, { added_on: at(`${DAY1}T08:00:01Z`), parent_id: a1.id, model_id: mini.id, total_tokens: 99, total_tokens_cost: 8 });
  // Never stored by the pipeline; should one be, it counts nowhere.
  await insertLog(alice, { added_on: at(`${DAY1}T09:00:00Z`), model_id: mini.id, total_tokens: 1000, total_tokens_cost: 64, privacy_level: 3 });
  // Another organization's requests on the same days.
  await insertLog(bob, { added_on: at(`${DAY1}T10:00:00Z`), model_id: mini.id, total_tokens: 500, total_tokens_cost: 32 });
  Object.assign(logIds, { a1: a1.id, a2: a2.id, a3: a3.id, a4: a4.id, child: child.id });
});
afterAll(() => ctx.close());

const bucket = (fields: Record<string, unknown>): Record<string, unknown> => ({
  requests: 0,
  errors: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cost: 0,
  savings: 0,
  ...fields,
});

describe('GET /v1/logs/summary', () => {
  it('buckets the organization’s top-level requests per UTC day', async () => {
    const res = await summary(alice, 'group_by=day');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'log.summary',
      group_by: ['day'],
      created_after: null,
      created_before: null,
      data: [
        bucket({ day: DAY1, requests: 2, errors: 1, prompt_tokens: 30, completion_tokens: 15, total_tokens: 45, cost: 1.5, savings: 0.25 }),
        bucket({ day: DAY2, requests: 2, errors: 0, prompt_tokens: 5, completion_tokens: 5, total_tokens: 10, cost: 0.375, savings: 0.625 }),
      ],
    });
  });

  it('buckets per model and per Space, and per day and model for a chart over time', async () => {
    const byModel = await summary(alice, 'group_by=model');
    expect(byModel.body.data).toEqual(
      [
        bucket({ model: mini.model, requests: 3, prompt_tokens: 15, completion_tokens: 10, total_tokens: 25, cost: 0.875, savings: 0.875 }),
        bucket({ model: other.model, requests: 1, errors: 1, prompt_tokens: 20, completion_tokens: 10, total_tokens: 30, cost: 1, savings: 0 }),
      ].sort((a, b) => String(a.model).localeCompare(String(b.model))),
    );
    const byApp = await summary(alice, 'group_by=app');
    expect(byApp.body.data).toEqual(
      [
        bucket({ app_id: alice.app_id, requests: 3, errors: 1, prompt_tokens: 34, completion_tokens: 19, total_tokens: 53, cost: 1.625, savings: 0.75 }),
        bucket({ app_id: aliceSecondApp, requests: 1, prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, cost: 0.25, savings: 0.125 }),
      ].sort((a, b) => String(a.app_id).localeCompare(String(b.app_id))),
    );
    // The order of the dimensions named does not change the buckets' order: day first.
    const overTime = await summary(alice, `group_by=model,day&app_id=${alice.app_id}`);
    expect(overTime.status).toBe(200);
    expect(overTime.body.group_by).toEqual(['model', 'day']);
    expect(overTime.body.data.map((b: { day: string; model: string; cost: number }) => [b.day, b.model, b.cost])).toEqual([
      ...[
        [DAY1, mini.model, 0.5],
        [DAY1, other.model, 1],
      ].sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
      [DAY2, mini.model, 0.125],
    ]);
  });

  it('applies the half-open date range, the model and the status filters', async () => {
    const res = await summary(alice, `group_by=day&created_after=${DAY1}T20:00:00Z&created_before=${DAY2}T12:00:00Z`);
    expect(res.body).toEqual({
      object: 'log.summary',
      group_by: ['day'],
      created_after: `${DAY1}T20:00:00.000Z`,
      created_before: `${DAY2}T12:00:00.000Z`,
      data: [
        bucket({ day: DAY1, requests: 1, errors: 1, prompt_tokens: 20, completion_tokens: 10, total_tokens: 30, cost: 1 }),
        bucket({ day: DAY2, requests: 1, prompt_tokens: 4, completion_tokens: 4, total_tokens: 8, cost: 0.125, savings: 0.5 }),
      ],
    });
    const byDate = await summary(alice, `group_by=app&created_after=${DAY2}&model=gpt-4o-mini&status=succeeded`);
    expect(byDate.body.data).toEqual([
      bucket({ app_id: alice.app_id, requests: 1, prompt_tokens: 4, completion_tokens: 4, total_tokens: 8, cost: 0.125, savings: 0.5 }),
    ]);
    const failed = await summary(alice, 'group_by=model&status=failed');
    expect(failed.body.data).toEqual([
      bucket({ model: other.model, requests: 1, errors: 1, prompt_tokens: 20, completion_tokens: 10, total_tokens: 30, cost: 1 }),
    ]);
  });

  it('never counts another organization’s logs, and answers 404 for its Space', async () => {
    const own = await summary(bob, 'group_by=day');
    expect(own.body.data).toEqual([bucket({ day: DAY1, requests: 1, total_tokens: 500, cost: 32 })]);
    for (const appId of [alice.app_id, UNKNOWN_ID]) {
      const res = await summary(bob, `group_by=day&app_id=${appId}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { message: 'Space not found', type: 'not_found_error', code: 'not_found', param: 'app_id' } });
    }
  });

  it.each([
    ['', 'group_by'],
    ['group_by=week', 'group_by'],
    ['group_by=day,day', 'group_by'],
    ['group_by=day,app,model', 'group_by'],
    ['group_by=day&created_after=yesterday', 'created_after'],
    ['group_by=day&created_after=2026-03-01T10:00:00', 'created_after'],
    ['group_by=day&created_before=10000-01-01', 'created_before'],
    ['group_by=day&created_after=2026-03-02&created_before=2026-03-01', 'created_before'],
    ['group_by=day&created_after=2026-03-02&created_before=2026-03-02', 'created_before'],
    ['group_by=day&status=ok', 'status'],
    ['group_by=day&created_after=2026-02-30', 'created_after'],
    ['group_by=day&group_by=model', 'group_by'],
    ['group_by=day&created_after=2026-03-01&created_after=2026-03-02', 'created_after'],
    ['group_by=day&model=x&model=y', 'model'],
    ['group_by=day&app_id=nope', 'app_id'],
  ])('rejects %s with a 400 naming %s', async (query, param) => {
    const res = await summary(alice, query);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('needs a key', async () => {
    const res = await request(ctx.app).get('/v1/logs/summary?group_by=day');
    expect(res.status).toBe(401);
  });
});

describe('GET /v1/logs filters', () => {
  it('keeps logs in the half-open date range, newest first', async () => {
    const res = await list(alice, `created_after=${DAY1}T20:00:00Z&created_before=${DAY2}T12:00:00Z`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([logIds.a3, logIds.a2]);
    const dayOnly = await list(alice, `created_after=${DAY2}`);
    expect(ids(dayOnly.body)).toEqual([logIds.a4, logIds.a3]);
  });

  it('filters by model name, by status, and combines with app_id and include_children', async () => {
    expect(ids((await list(alice, `model=${other.model}`)).body)).toEqual([logIds.a2]);
    expect(ids((await list(alice, 'status=failed')).body)).toEqual([logIds.a2]);
    expect(ids((await list(alice, 'status=succeeded')).body)).toEqual([logIds.a3, logIds.a1]);
    expect(ids((await list(alice, `model=gpt-4o-mini&app_id=${alice.app_id}&created_before=${DAY2}`)).body)).toEqual([logIds.a1]);
    expect(ids((await list(alice, `model=gpt-4o-mini&created_before=${DAY2}&include_children=true`)).body)).toEqual([logIds.child, logIds.a1]);
    expect(ids((await list(alice, 'model=no-such-model')).body)).toEqual([]);
  });

  it('pages through a filtered range', async () => {
    const first = await list(alice, `created_after=${DAY1}&limit=3`);
    expect(first.body.has_more).toBe(true);
    const second = await list(alice, `created_after=${DAY1}&limit=3&after=${first.body.last_id}`);
    expect([...ids(first.body), ...ids(second.body)]).toEqual([logIds.a4, logIds.a3, logIds.a2, logIds.a1]);
  });

  it('shows nothing of another organization', async () => {
    expect(ids((await list(bob, `created_after=${DAY1}&created_before=${DAY2}&model=gpt-4o-mini`)).body)).toHaveLength(1);
    expect((await list(bob, `app_id=${alice.app_id}&created_after=${DAY1}`)).status).toBe(404);
  });

  it.each([
    ['created_after=2026-13-01', 'created_after'],
    ['created_before=soon', 'created_before'],
    ['created_after=2026-03-02&created_before=2026-03-01T23:59:59Z', 'created_before'],
    ['status=error', 'status'],
    ['model=', 'model'],
  ])('rejects %s with a 400 naming %s', async (query, param) => {
    const res = await list(alice, query);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
  });
});
