import request from 'supertest';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';

let ctx: TestContext;
let alice: Tenant;
let bob: Tenant;
let owner: Tenant;

const valid = { prompt: 'You are a careful reviewer.', title: 'Reviewer', description: 'Reviews code carefully.' };

beforeAll(async () => {
  ctx = createTestContext();
  [alice, bob, owner] = await Promise.all([ctx.tenant(), ctx.tenant(), ctx.tenant({ serviceOwner: true })]);
});
afterAll(() => ctx.close());

async function createPrompt(tenant: Tenant, body: object = valid) {
  const res = await request(ctx.app).post('/v1/prompts').set(tenant.auth).send(body);
  expect(res.status).toBe(201);
  return res.body as { id: string; status: string; tokens: number };
}

describe('POST /v1/prompts and PUT /v1/prompts', () => {
  it('creates a draft with tokens counted', async () => {
    const res = await request(ctx.app).post('/v1/prompts').set(alice.auth).send(valid);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      ...valid,
      org_id: alice.org_id,
      status: 'draft',
      is_public: false,
      published_on: null,
      reviewed_on: null,
      approved_on: null,
      decline_reason: null,
    });
    expect(res.body.tokens).toBe(6);
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['title', 'a'.repeat(60), 200],
    ['title', 'a'.repeat(61), 400],
    ['title', '', 400],
    ['description', 'd'.repeat(200), 200],
    ['description', 'd'.repeat(201), 400],
    ['description', '', 400],
  ])('PUT with %s %j answers %d', async (field, value, status) => {
    const { id } = await createPrompt(alice);
    const res = await request(ctx.app)
      .put('/v1/prompts')
      .set(alice.auth)
      .send({ ...valid, id, [field]: value });
    expect(res.status).toBe(status);
    if (status === 400) {
      expect(res.body).toEqual({
        error: { message: expect.stringContaining(field), type: 'invalid_request_error', code: 'invalid_value', param: field },
      });
    } else {
      expect(res.body[field]).toBe(value);
    }
  });

  it.each([
    ['title', 60, 201],
    ['title', 61, 400],
    ['description', 200, 201],
    ['description', 201, 400],
  ])('POST /v1/internal/prompts with %s of %d characters answers %d', async (field, length, status) => {
    const res = await request(ctx.app)
      .post('/v1/internal/prompts')
      .set(owner.auth)
      .send({ ...valid, [field]: 'x'.repeat(length) });
    expect(res.status).toBe(status);
  });

  it('requires every field of PUT and names the missing one', async () => {
    const res = await request(ctx.app).put('/v1/prompts').set(alice.auth).send(valid);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { message: "Missing required field 'id'.", type: 'invalid_request_error', code: 'missing_field', param: 'id' },
    });
  });

  it('rejects unknown fields and changes nothing', async () => {
    const { id } = await createPrompt(alice);
    const res = await request(ctx.app)
      .put('/v1/prompts')
      .set(alice.auth)
      .send({ ...valid, id, title: 'Changed', colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'unknown_field', param: 'colour' });
    const after = await request(ctx.app).get(`/v1/prompts/${id}`).set(alice.auth);
    expect(after.body.title).toBe(valid.title);
  });

  it('answers 404 for a prompt of another organization, exactly as for an unknown id', async () => {
    const { id } = await createPrompt(alice);
    const foreign = await request(ctx.app)
      .put('/v1/prompts')
      .set(bob.auth)
      .send({ ...valid, id });
    const unknown = await request(ctx.app)
      .put('/v1/prompts')
      .set(bob.auth)
      .send({ ...valid, id: '00000000-0000-4000-8000-000000000000' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect((await request(ctx.app).get(`/v1/prompts/${id}`).set(bob.auth)).status).toBe(404);
  });

  it('creates public prompts only with a service-owner key', async () => {
    const res = await request(ctx.app).post('/v1/internal/prompts').set(alice.auth).send(valid);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
    const ok = await request(ctx.app).post('/v1/internal/prompts').set(owner.auth).send(valid);
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ is_public: true, status: 'approved' });
    expect(ok.body.approved_on).not.toBeNull();
    const seenByBob = await request(ctx.app).get(`/v1/prompts/${ok.body.id}`).set(bob.auth);
    expect(seenByBob.status).toBe(200);
  });
});

describe('prompt review', () => {
  it('moves draft → pending → approved and puts a job on the prompt-review queue', async () => {
    const { id } = await createPrompt(alice);
    const published = await request(ctx.app).post(`/v1/prompts/${id}/publish`).set(alice.auth);
    expect(published.status).toBe(200);
    expect(published.body.status).toBe('pending');
    expect(published.body.published_on).not.toBeNull();
    const jobs = await ctx.services.queues.promptReview.getJobs(['waiting', 'active', 'completed', 'delayed']);
    expect(jobs.some((job) => job.data.promptId === id)).toBe(true);

    const approved = await request(ctx.app).post(`/v1/internal/prompts/${id}/approve`).set(owner.auth);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', decline_reason: null });
    expect(approved.body.reviewed_on).toBe(approved.body.approved_on);
    expect((await request(ctx.app).get(`/v1/prompts/${id}`).set(bob.auth)).status).toBe(200);
  });

  it('declines with a reason; approving a declined prompt is a 409 until it is resubmitted', async () => {
    const { id } = await createPrompt(alice);
    await request(ctx.app).post(`/v1/prompts/${id}/publish`).set(alice.auth).expect(200);
    const declined = await request(ctx.app).post(`/v1/internal/prompts/${id}/decline`).set(owner.auth).send({ decline_reason: 'Too vague' });
    expect(declined.body).toMatchObject({ status: 'declined', decline_reason: 'Too vague', approved_on: null });

    const approveDeclined = await request(ctx.app).post(`/v1/internal/prompts/${id}/approve`).set(owner.auth);
    expect(approveDeclined.status).toBe(409);
    expect(approveDeclined.body).toEqual({
      error: { message: 'Cannot approve a prompt that is declined.', type: 'conflict_error', code: 'invalid_state_transition', param: null },
    });

    const resubmitted = await request(ctx.app).post(`/v1/prompts/${id}/publish`).set(alice.auth);
    expect(resubmitted.body).toMatchObject({ status: 'pending', decline_reason: null, reviewed_on: null });
    expect((await request(ctx.app).post(`/v1/internal/prompts/${id}/approve`).set(owner.auth)).status).toBe(200);
  });

  it('refuses to review an unpublished prompt and to publish twice', async () => {
    const { id } = await createPrompt(alice);
    expect((await request(ctx.app).post(`/v1/internal/prompts/${id}/approve`).set(owner.auth)).status).toBe(409);
    expect((await request(ctx.app).post(`/v1/internal/prompts/${id}/decline`).set(owner.auth).send({ decline_reason: 'no' })).status).toBe(409);
    await request(ctx.app).post(`/v1/prompts/${id}/publish`).set(alice.auth).expect(200);
    expect((await request(ctx.app).post(`/v1/prompts/${id}/publish`).set(alice.auth)).status).toBe(409);
  });

  it('only service owners review', async () => {
    const { id } = await createPrompt(alice);
    await request(ctx.app).post(`/v1/prompts/${id}/publish`).set(alice.auth).expect(200);
    expect((await request(ctx.app).post(`/v1/internal/prompts/${id}/approve`).set(alice.auth)).status).toBe(403);
  });

  it('sends an edited approved prompt back to draft', async () => {
    const { id } = await createPrompt(alice);
    await request(ctx.app).post(`/v1/prompts/${id}/publish`).set(alice.auth).expect(200);
    await request(ctx.app).post(`/v1/internal/prompts/${id}/approve`).set(owner.auth).expect(200);
    const edited = await request(ctx.app)
      .put('/v1/prompts')
      .set(alice.auth)
      .send({ ...valid, id, prompt: 'Something else' });
    expect(edited.body).toMatchObject({ status: 'draft', published_on: null, approved_on: null });
  });

  it('automated screening declines a prompt that carries a secret', async () => {
    const { id } = await createPrompt(alice, { ...valid, prompt: 'Use key sk-abcdefghijklmnopqrstuvwxyz123456 for calls' });
    const published = await request(ctx.app).post(`/v1/prompts/${id}/publish`).set(alice.auth);
    const outcome = await ctx.services.prompts.screenSubmission(id, published.body.published_on);
    expect(outcome).toBe('declined');
    const after = await request(ctx.app).get(`/v1/prompts/${id}`).set(alice.auth);
    expect(after.body).toMatchObject({ status: 'declined', decline_reason: 'Automated screening: the prompt appears to contain an API key.' });
  });
});

describe('GET /v1/prompts', () => {
  it('pages through the organization’s prompts with a cursor, newest first', async () => {
    const carol = await ctx.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await createPrompt(carol, { ...valid, title: `P${i}` })).id);
    const first = await request(ctx.app).get('/v1/prompts?limit=2').set(carol.auth);
    expect(first.body).toMatchObject({ object: 'list', has_more: true, first_id: ids[4], last_id: ids[3] });
    const second = await request(ctx.app).get(`/v1/prompts?limit=2&after=${first.body.last_id}`).set(carol.auth);
    expect(second.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    const third = await request(ctx.app).get(`/v1/prompts?limit=2&after=${second.body.last_id}`).set(carol.auth);
    expect(third.body).toMatchObject({ has_more: false, first_id: ids[0], last_id: ids[0] });
  });

  it('does not accept another organization’s id as a cursor', async () => {
    const { id } = await createPrompt(alice);
    const res = await request(ctx.app).get(`/v1/prompts?after=${id}`).set(bob.auth);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('after');
  });

  it('validates limit', async () => {
    const res = await request(ctx.app).get('/v1/prompts?limit=101').set(alice.auth);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('limit');
  });

  it('lists the review queue for service owners only', async () => {
    expect((await request(ctx.app).get('/v1/prompts?scope=review&status=pending').set(alice.auth)).status).toBe(403);
    const res = await request(ctx.app).get('/v1/prompts?scope=review&status=pending').set(owner.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.every((p: { status: string }) => p.status === 'pending')).toBe(true);
  });
});
