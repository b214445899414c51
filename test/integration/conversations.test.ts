import request from 'supertest';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';

let ctx: TestContext;
let alice: Tenant;
/** Another Space (and user) of alice's organization. */
let aliceSecond: Tenant;
let bob: Tenant;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  ctx = createTestContext();
  const org = `org-${uniqueSuffix()}`;
  alice = await ctx.tenant({ org, idpId: `alice@${org}` });
  [aliceSecond, bob] = await Promise.all([ctx.tenant({ org, space: 'second', idpId: `colleague@${org}` }), ctx.tenant()]);
});
afterAll(() => ctx.close());

const base = (tenant: Tenant, appId = tenant.app_id) => `/v1/apps/${appId}/conversations`;

async function createAssistant(tenant: Tenant, body: object = { name: 'Helper', visibility: 'organization' }) {
  const res = await request(ctx.app).post(`/v1/apps/${tenant.app_id}/assistants/`).set(tenant.auth).send(body);
  expect(res.status).toBe(201);
  return res.body as { id: string; version_id: string };
}

async function createConversation(tenant: Tenant, body: object = {}) {
  const res = await request(ctx.app)
    .post(`${base(tenant)}/create`)
    .set(tenant.auth)
    .send(body);
  expect(res.status).toBe(201);
  return res.body as { id: string; added_on: string };
}

describe('POST /v1/apps/{app_id}/conversations/create', () => {
  it('creates a conversation with defaults', async () => {
    const before = Date.now();
    const res = await request(ctx.app)
      .post(`${base(alice)}/create`)
      .set(alice.auth)
      .send({});
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      app_id: alice.app_id,
      name: '',
      added_on: expect.any(String),
      modified_on: res.body.added_on,
      deleted_on: null,
      settings: { assistant_id: null, assistant_version_id: null },
    });
    expect(Date.parse(res.body.added_on)).toBeGreaterThanOrEqual(before - 5);
  });

  it('stores the current version when only the assistant is given', async () => {
    const assistant = await createAssistant(alice);
    const res = await request(ctx.app)
      .post(`${base(alice)}/create`)
      .set(alice.auth)
      .send({ name: 'Chat', settings: { assistant_id: assistant.id } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Chat', settings: { assistant_id: assistant.id, assistant_version_id: assistant.version_id } });
  });

  it('accepts an older version of the assistant', async () => {
    const assistant = await createAssistant(alice, { name: 'Old', assistant_config: { temperature: 1 } });
    await request(ctx.app)
      .put(`/v1/apps/${alice.app_id}/assistants/${assistant.id}`)
      .set(alice.auth)
      .send({ assistant_config: { temperature: 0 } })
      .expect(200);
    const settings = { assistant_id: assistant.id, assistant_version_id: assistant.version_id };
    const res = await request(ctx.app)
      .post(`${base(alice)}/create`)
      .set(alice.auth)
      .send({ settings });
    expect(res.body.settings).toEqual(settings);
  });

  it('refuses an assistant of another Space, of another organization, or unknown', async () => {
    const otherSpace = await createAssistant(aliceSecond);
    const foreign = await createAssistant(bob);
    for (const id of [otherSpace.id, foreign.id, UNKNOWN_ID]) {
      const res = await request(ctx.app)
        .post(`${base(alice)}/create`)
        .set(alice.auth)
        .send({ settings: { assistant_id: id } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: {
          message: "Invalid value for 'settings.assistant_id': no assistant with this id in this Space.",
          type: 'invalid_request_error',
          code: 'invalid_value',
          param: 'settings.assistant_id',
        },
      });
    }
  });

  it("refuses another assistant's version, and a version without an assistant", async () => {
    const mine = await createAssistant(alice);
    const other = await createAssistant(alice);
    const wrong = await request(ctx.app)
      .post(`${base(alice)}/create`)
      .set(alice.auth)
      .send({ settings: { assistant_id: mine.id, assistant_version_id: other.version_id } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_value', param: 'settings.assistant_version_id' });

    const orphan = await request(ctx.app)
      .post(`${base(alice)}/create`)
      .set(alice.auth)
      .send({ settings: { assistant_version_id: mine.version_id } });
    expect(orphan.status).toBe(400);
    expect(orphan.body).toEqual({
      error: {
        message: "Missing required field 'settings.assistant_id': it is required with 'settings.assistant_version_id'.",
        type: 'invalid_request_error',
        code: 'missing_field',
        param: 'settings.assistant_id',
      },
    });
  });

  it("refuses another user's private assistant like an unknown one", async () => {
    const hidden = await createAssistant(aliceSecond, { name: 'Mine', visibility: 'private' });
    const res = await request(ctx.app)
      .post(`${base(aliceSecond)}/create`)
      .set(alice.auth)
      .send({ settings: { assistant_id: hidden.id } });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('settings.assistant_id');
  });

  it('imports added_on and modified_on, which must be in order', async () => {
    const stamps = { added_on: '2024-01-02T03:04:05.678Z', modified_on: '2024-02-03T04:05:06.789Z' };
    const imported = await request(ctx.app)
      .post(`${base(alice)}/create`)
      .set(alice.auth)
      .send({ name: 'Old chat', ...stamps });
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject(stamps);

    const onlyModified = await request(ctx.app)
      .post(`${base(alice)}/create`)
      .set(alice.auth)
      .send({ modified_on: stamps.modified_on });
    expect(onlyModified.body).toMatchObject({ added_on: stamps.modified_on, modified_on: stamps.modified_on });

    const reversed = await request(ctx.app)
      .post(`${base(alice)}/create`)
      .set(alice.auth)
      .send({ added_on: stamps.modified_on, modified_on: stamps.added_on });
    expect(reversed.status).toBe(400);
    expect(reversed.body).toEqual({
      error: {
        message: "Invalid value for 'modified_on': it must not be before 'added_on'.",
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'modified_on',
      },
    });
  });

  it.each([
    ['name', { name: 'n'.repeat(201) }, 'invalid_value'],
    ['added_on', { added_on: 'yesterday' }, 'invalid_value'],
    ['settings.assistant_id', { settings: { assistant_id: 'nope' } }, 'invalid_value'],
    ['settings.colour', { settings: { colour: 'red' } }, 'unknown_field'],
    ['topic', { topic: 'x' }, 'unknown_field'],
  ])('rejects a bad %s', async (param, body, code) => {
    const res = await request(ctx.app)
      .post(`${base(alice)}/create`)
      .set(alice.auth)
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param });
  });

  it("answers 404 for another organization's Space exactly as for an unknown one", async () => {
    const foreign = await request(ctx.app)
      .post(`${base(alice, bob.app_id)}/create`)
      .set(alice.auth)
      .send({});
    const unknown = await request(ctx.app)
      .post(`${base(alice, UNKNOWN_ID)}/create`)
      .set(alice.auth)
      .send({});
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
  });
});

describe('reading and deleting conversations', () => {
  it('reads a conversation, deletes it softly, then answers 404', async () => {
    const { id } = await createConversation(alice, { name: 'Short-lived' });
    const url = `${base(alice)}/${id}`;
    expect((await request(ctx.app).get(url).set(alice.auth)).body).toMatchObject({ id, name: 'Short-lived', deleted_on: null });

    const deleted = await request(ctx.app).delete(url).set(alice.auth);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id, name: 'Short-lived' });
    expect(Date.parse(deleted.body.deleted_on)).not.toBeNaN();

    const gone = await request(ctx.app).get(url).set(alice.auth);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: { message: 'Conversation not found', type: 'not_found_error', code: 'not_found', param: 'conversation_id' } });
    expect((await request(ctx.app).delete(url).set(alice.auth)).status).toBe(404);
    expect(await ctx.services.db.conversation.findUnique({ where: { id } })).not.toBeNull();
  });

  it('lists live conversations newest first, page by page', async () => {
    const space = await ctx.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await createConversation(space, { name: `C${i}`, added_on: `2024-05-0${i + 1}T00:00:00Z` })).id);
    await request(ctx.app)
      .delete(`${base(space)}/${ids[3]}`)
      .set(space.auth)
      .expect(200);

    const first = await request(ctx.app)
      .get(`${base(space)}?limit=2`)
      .set(space.auth);
    expect(first.body).toMatchObject({ object: 'list', has_more: true, first_id: ids[4], last_id: ids[2] });
    const second = await request(ctx.app)
      .get(`${base(space)}?limit=2&after=${first.body.last_id}`)
      .set(space.auth);
    expect(second.body).toMatchObject({ has_more: false, first_id: ids[1], last_id: ids[0] });
  });

  it("answers 404 for another organization's conversation exactly as for an unknown one", async () => {
    const { id } = await createConversation(bob);
    for (const appId of [bob.app_id, alice.app_id]) {
      const foreign = await request(ctx.app)
        .get(`${base(alice, appId)}/${id}`)
        .set(alice.auth);
      const unknown = await request(ctx.app)
        .get(`${base(alice, appId)}/${UNKNOWN_ID}`)
        .set(alice.auth);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(unknown.body);
      expect(
        (
          await request(ctx.app)
            .delete(`${base(alice, appId)}/${id}`)
            .set(alice.auth)
        ).status,
      ).toBe(404);
    }
    expect(
      (
        await request(ctx.app)
          .get(`${base(bob)}/${id}`)
          .set(bob.auth)
      ).status,
    ).toBe(200);
  });

  it('does not find a conversation through another Space of the same organization', async () => {
    const { id } = await createConversation(alice);
    expect(
      (
        await request(ctx.app)
          .get(`${base(aliceSecond)}/${id}`)
          .set(alice.auth)
      ).status,
    ).toBe(404);
  });

  it('requires conversations:write to create and delete', async () => {
    const viewer = await ctx.tenant({ role: 'viewer' });
    expect(
      (
        await request(ctx.app)
          .post(`${base(viewer)}/create`)
          .set(viewer.auth)
          .send({})
      ).status,
    ).toBe(403);
    expect(
      (
        await request(ctx.app)
          .delete(`${base(viewer)}/${UNKNOWN_ID}`)
          .set(viewer.auth)
      ).status,
    ).toBe(403);
    expect((await request(ctx.app).get(base(viewer)).set(viewer.auth)).status).toBe(200);
  });
});
