import { decidedJobParts } from '../helpers/completion-job';
import request from 'supertest';
import type { Model, Prisma } from '../../src/generated/prisma/client';
import { prepareCompletion } from '../../src/pipeline/prepare-request';
import { SpaceContextLoader } from '../../src/store/space-context';
import type { CompletionJob } from '../../src/queue/payloads';
import { SpaceFeedbackLoader } from '../../src/routing/online/space-feedback-loader';
import type { CompletionSources } from '../../src/store/completion-sources';
import { LogRepository } from '../../src/store/logs';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';

let ctx: TestContext;
let alice: Tenant;
let bob: Tenant;
let model: Model;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  ctx = createTestContext();
  [alice, bob] = await Promise.all([ctx.tenant(), ctx.tenant()]);
  model = await ctx.services.db.model.findFirstOrThrow({ where: { model: 'gpt-4o-mini', app_id: null, org_id: null } });
});
afterAll(() => ctx.close());

let clock = Date.now();

/** The routing explanation the worker writes into `response.metadata.scores`. */
function routedResponse(options: { smartLearn: boolean; kind?: string; offlineQuality?: number }) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    metadata: {
      scores: {
        best_models: [model.model, 'gpt-4o'],
        candidates: [
          {
            model: model.model,
            provider: model.provider,
            score: 0.8,
            quality: 0.7,
            offline_quality: options.offlineQuality ?? 0.75,
            cost: 0.0001,
            latency: 800,
          },
          { model: 'gpt-4o', provider: 'openai', score: 0.7, quality: 0.9, offline_quality: 0.9, cost: 0.002, latency: 1500 },
        ],
        router: { version: 'test', kind: options.kind ?? 'math', smart_learn: options.smartLearn, explored: false },
      },
    },
  };
}

/** Logs are written by the completion pipeline; here they are inserted directly. */
async function insertLog(tenant: Tenant, data: Partial<Prisma.LogUncheckedCreateInput> = {}) {
  clock += 1;
  return ctx.services.db.log.create({
    data: {
      org_id: tenant.org_id,
      app_id: tenant.app_id,
      model_id: model.id,
      timestamp: BigInt(clock),
      added_on: new Date(clock),
      response: routedResponse({ smartLearn: true }),
      ...data,
    },
  });
}

const rate = (tenant: Tenant, id: string, goodAnswer: boolean | null) =>
  request(ctx.app).put(`/v1/logs/${id}/rating`).set(tenant.auth).send({ good_answer: goodAnswer });

function cellOf(appId: string, kind = 'math') {
  return ctx.services.db.routingFeedback.findUnique({
    where: { app_id_model_id_kind: { app_id: appId, model_id: model.id, kind } },
    select: { ratings: true, good: true, expected: true },
  });
}

describe('rating a log routed with smart_learn', () => {
  it("creates the Space's cell, moves it as the rating changes, and ignores a rating sent again", async () => {
    const space = await ctx.tenant();
    const first = await insertLog(space);
    expect((await rate(space, first.id, true)).status).toBe(200);
    expect(await cellOf(space.app_id)).toEqual({ ratings: 1, good: 1, expected: 0.75 });

    expect((await rate(space, first.id, true)).status).toBe(200);
    expect(await cellOf(space.app_id)).toEqual({ ratings: 1, good: 1, expected: 0.75 });

    const second = await insertLog(space, { response: routedResponse({ smartLearn: true, offlineQuality: 0.5 }) });
    await rate(space, second.id, false).expect(200);
    expect(await cellOf(space.app_id)).toEqual({ ratings: 2, good: 1, expected: 1.25 });

    await rate(space, first.id, false).expect(200);
    expect(await cellOf(space.app_id)).toEqual({ ratings: 2, good: 0, expected: 1.25 });
    await rate(space, second.id, true).expect(200);
    expect(await cellOf(space.app_id)).toEqual({ ratings: 2, good: 1, expected: 1.25 });

    const removed = await rate(space, first.id, null);
    expect(removed.body).toMatchObject({ good_answer: null });
    expect(await cellOf(space.app_id)).toEqual({ ratings: 1, good: 1, expected: 0.5 });
    await rate(space, second.id, null).expect(200);
    expect(await cellOf(space.app_id)).toEqual({ ratings: 0, good: 0, expected: 0 });
  });

  it('keeps a cell per kind of prompt, which the worker-side loader reads', async () => {
    const space = await ctx.tenant();
    await rate(space, (await insertLog(space, { response: routedResponse({ smartLearn: true, kind: 'code' }) })).id, true).expect(200);
    await rate(space, (await insertLog(space, { response: routedResponse({ smartLearn: true, kind: 'math' }) })).id, false).expect(200);
    const feedback = await new SpaceFeedbackLoader(ctx.services.db, 0).load(space.app_id);
    expect(feedback.cell(model.id, 'code')).toEqual({ ratings: 1, good: 1, expected: 0.75 });
    expect(feedback.cell(model.id, 'math')).toEqual({ ratings: 1, good: 0, expected: 0.75 });
    expect(feedback.modelCell(model.id)).toEqual({ ratings: 2, good: 1, expected: 1.5 });
    expect(feedback.ratings(model.id)).toBe(2);
  });

  it('is read by the worker once per Space per interval: a rating shows up only after the interval', async () => {
    const space = await ctx.tenant();
    const other = await ctx.tenant();
    const [first, second] = await Promise.all([insertLog(space), insertLog(space)]);
    await rate(space, first.id, true).expect(200);
    const loader = new SpaceFeedbackLoader(ctx.services.db, 60_000);
    const [a, b] = await Promise.all([loader.load(space.app_id), loader.load(space.app_id)]);
    expect(a).toBe(b);
    expect(a.cell(model.id, 'math')).toEqual({ ratings: 1, good: 1, expected: 0.75 });
    await rate(space, second.id, false).expect(200);
    expect((await loader.load(space.app_id)).cell(model.id, 'math')).toEqual({ ratings: 1, good: 1, expected: 0.75 });
    expect((await loader.load(other.app_id)).ratings(model.id)).toBe(0);
    expect((await new SpaceFeedbackLoader(ctx.services.db, 0).load(space.app_id)).cell(model.id, 'math')).toEqual({ ratings: 2, good: 1, expected: 1.5 });
  });

  it('counts concurrent ratings of different logs of the same cell once each', async () => {
    const space = await ctx.tenant();
    const logs = await Promise.all(Array.from({ length: 6 }, () => insertLog(space)));
    await Promise.all(logs.map((log, i) => rate(space, log.id, i % 2 === 0).expect(200)));
    const cell = await cellOf(space.app_id);
    expect(cell).toMatchObject({ ratings: 6, good: 3 });
    expect(cell?.expected).toBeCloseTo(4.5, 10);
  });

  // Functions: the catalog model is only known once the suite has started.
  it('counts a rating sent several times at once only once', async () => {
    const space = await ctx.tenant();
    const row = await insertLog(space);
    await Promise.all(Array.from({ length: 5 }, () => rate(space, row.id, true).expect(200)));
    expect(await cellOf(space.app_id)).toEqual({ ratings: 1, good: 1, expected: 0.75 });
  });

  it.each([
    ['smart_learn was off', () => ({ response: routedResponse({ smartLearn: false }) })],
    ['the metadata is missing (masked or older logs)', () => ({ response: { id: 'chatcmpl-1' } })],
    ['no model answered', () => ({ model_id: null })],
  ])('leaves the table alone when %s', async (_, data) => {
    const space = await ctx.tenant();
    const row = await insertLog(space, data());
    await rate(space, row.id, true).expect(200);
    await rate(space, row.id, false).expect(200);
    expect(await ctx.services.db.routingFeedback.count({ where: { app_id: space.app_id } })).toBe(0);
  });

  it('leaves the table alone for a sub-request', async () => {
    const space = await ctx.tenant();
    const parent = await insertLog(space, { response: routedResponse({ smartLearn: false }) });
    const child = await insertLog(space, { parent_id: parent.id });
    await rate(space, child.id, true).expect(200);
    expect(await ctx.services.db.routingFeedback.count({ where: { app_id: space.app_id } })).toBe(0);
  });

  it("answers 404 for another organization's log and changes neither it nor any cell", async () => {
    const foreign = await insertLog(bob);
    const res = await rate(alice, foreign.id, true);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found', param: 'log_id' });
    expect((await ctx.services.db.log.findUniqueOrThrow({ where: { id: foreign.id } })).good_answer).toBeNull();
    expect(await ctx.services.db.routingFeedback.count({ where: { app_id: { in: [alice.app_id, bob.app_id] } } })).toBe(0);
  });

  it('writes nothing when the cell cannot be written', async () => {
    const space = await ctx.tenant();
    const row = await insertLog(space);
    const failing = () => ({ key: { appId: space.app_id, modelId: UNKNOWN_ID, kind: 'math' }, delta: { ratings: 1, good: 1, expected: 0.5 } });
    await expect(new LogRepository(ctx.services.db).setRating(row.id, { good_answer: true, feedback: 'Great' }, failing)).rejects.toThrow();
    const after = await ctx.services.db.log.findUniqueOrThrow({ where: { id: row.id } });
    expect([after.good_answer, after.feedback]).toEqual([null, '']);
    expect(await ctx.services.db.routingFeedback.count({ where: { app_id: space.app_id } })).toBe(0);
  });
});

describe('Space settings feature_flags', () => {
  const update = (tenant: Tenant, body: object) => request(ctx.app).put('/v1/apps/update').set(tenant.auth).send(body);
  const getApp = (tenant: Tenant, id: string) => request(ctx.app).get(`/v1/apps/${id}`).set(tenant.auth);

  it('round-trips through create, update and read, merging flag by flag', async () => {
    const created = await request(ctx.app)
      .post('/v1/apps')
      .set(alice.auth)
      .send({ name: 'Learner', settings: { feature_flags: { smart_learn: true } } });
    expect(created.status).toBe(201);
    const id = created.body.app.id as string;
    expect(created.body.app.settings.feature_flags).toEqual({ smart_learn: true });

    const updated = await update(alice, { id, settings: { feature_flags: { citations: false }, temperature: 0.2 } });
    expect(updated.status).toBe(200);
    expect(updated.body.main.app.settings).toMatchObject({ temperature: 0.2, feature_flags: { smart_learn: true, citations: false } });
    await update(alice, { id, settings: { feature_flags: { smart_learn: false } } }).expect(200);
    expect((await getApp(alice, id)).body.app.settings.feature_flags).toEqual({ smart_learn: false, citations: false });
  });

  it('is absent from a Space that never set it', async () => {
    const res = await getApp(alice, alice.app_id);
    expect(res.body.app.settings).toEqual({ assistant_id: null, assistant_version_id: null, instructions: null, max_tokens: null, temperature: null });
  });

  it.each([
    [{ feature_flags: { colour: true } }, 'unknown_field', 'settings.feature_flags.colour'],
    [{ feature_flags: { smart_learn: 'yes' } }, 'invalid_value', 'settings.feature_flags.smart_learn'],
    [{ feature_flags: true }, 'invalid_value', 'settings.feature_flags'],
  ])('rejects %j with a 400 naming the field', async (settings, code, param) => {
    const res = await update(alice, { id: alice.app_id, settings });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
    expect(res.body.error.message).toContain(param);
  });

  it("is copied to the Space's sandbox", async () => {
    const space = await ctx.tenant();
    await update(space, { id: space.app_id, settings: { feature_flags: { smart_learn: true } } }).expect(200);
    const outcome = await ctx.services.sandboxSync.run({ mainAppId: space.app_id, requestedBy: 'test' });
    if (outcome.result === 'skipped') throw new Error('the sandbox was not made');
    expect((await getApp(space, outcome.sandboxId)).body.app.settings.feature_flags).toEqual({ smart_learn: true });
  });

  it('are overridden by the Service-Feature-Flags header, then by custom_headers.feature_flags', async () => {
    const space = await ctx.tenant();
    await update(space, { id: space.app_id, settings: { feature_flags: { smart_learn: true, citations: true, auto_tools: true } } }).expect(200);
    const context = await new SpaceContextLoader(ctx.services.db, 0).load(space.app_id);
    if (!context) throw new Error('no Space context');
    const job: CompletionJob = {
      requestId: 'req-1',
      orgId: space.org_id,
      appId: space.app_id,
      spaceStamp: '',
      idpId: 'someone',
      ...decidedJobParts(
        { messages: [{ role: 'user', content: 'Hi' }], custom_headers: { feature_flags: { auto_tools: false } } },
        { space: context, headerFlags: { citations: false, auto_tools: true } },
      ),
      replyTo: 'nobody',
      deadline: Date.now() + 60_000,
      receivedAt: Date.now(),
    };
    // No assistant and no conversation: the sources are never asked.
    const prepared = await prepareCompletion({
      request: job.request,
      privacyLevel: job.privacyLevel,
      orgId: job.orgId,
      space: context,
      sources: {} as CompletionSources,
      autoModelName: 'auto',
    });
    expect(prepared.flags).toEqual({ smart_learn: true, citations: false, auto_tools: false });
  });
});
