import request from 'supertest';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { AssistantRepository } from '../../src/store/assistants';
import { uniqueSuffix } from '../helpers/test-database';

let ctx: TestContext;
let alice: Tenant;
/** Another user of alice's organization, with a key of another Space of it. */
let alicesColleague: Tenant;
let bob: Tenant;
let owner: Tenant;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  ctx = createTestContext();
  const org = `org-${uniqueSuffix()}`;
  alice = await ctx.tenant({ org, idpId: `alice@${org}` });
  [alicesColleague, bob, owner] = await Promise.all([
    ctx.tenant({ org, space: 'second', idpId: `colleague@${org}`, role: 'member' }),
    ctx.tenant(),
    ctx.tenant({ serviceOwner: true }),
  ]);
});
afterAll(() => ctx.close());

const path = (tenant: Tenant, appId = tenant.app_id) => `/v1/apps/${appId}/assistants`;

async function createAssistant(tenant: Tenant, body: object = { name: 'Helper' }) {
  const res = await request(ctx.app)
    .post(`${path(tenant)}/`)
    .set(tenant.auth)
    .send(body);
  expect(res.status).toBe(201);
  return res.body as { id: string; slug: string; version_id: string };
}

describe('POST /v1/apps/{app_id}/assistants/', () => {
  it('creates an assistant with version 1 of its configuration', async () => {
    const config = { instructions: 'Be brief.', model: 'gpt-4o-mini', temperature: 0.2, plugins: ['web-search'], response_format: { type: 'text' } };
    const res = await request(ctx.app)
      .post(`${path(alice)}/`)
      .set(alice.auth)
      .send({ name: 'Support Bot', description: 'Answers questions', avatar: null, assistant_config: config });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      app_id: alice.app_id,
      slug: 'support-bot',
      name: 'Support Bot',
      avatar: null,
      description: 'Answers questions',
      visibility: 'private',
      definition_visibility: 'private',
      version_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      added_on: expect.any(String),
    });
    const version = await ctx.services.db.assistantVersion.findUniqueOrThrow({ where: { id: res.body.version_id } });
    expect(version).toMatchObject({ assistant_id: res.body.id, version: 1, assistant_config: config });
  });

  it('answers with and without the trailing slash', async () => {
    const res = await request(ctx.app).post(path(alice)).set(alice.auth).send({ name: 'No slash' });
    expect(res.status).toBe(201);
    expect(
      (
        await request(ctx.app)
          .get(`${path(alice)}/`)
          .set(alice.auth)
      ).status,
    ).toBe(200);
  });

  it.each([
    ['Crème Brûlée Bot', 'creme-brulee-bot'],
    ['  Hello,   World!! ', 'hello-world'],
    ['Straße & Ørsted', 'strasse-orsted'],
    ['!!!', 'assistant'],
    ['日本語', 'assistant'],
    ['A'.repeat(70), 'a'.repeat(60)],
    ['abcdefghi '.repeat(7), Array(6).fill('abcdefghi').join('-')],
  ])('derives the slug of %j as %j', async (name, slug) => {
    const space = await ctx.tenant();
    expect((await createAssistant(space, { name })).slug).toBe(slug);
  });

  it('appends -2, -3, ... to a taken slug, keeping it within 60 characters', async () => {
    const space = await ctx.tenant();
    const slugs = [];
    for (const name of ['Déjà vu', 'deja vu', 'DEJA-VU!']) slugs.push((await createAssistant(space, { name })).slug);
    expect(slugs).toEqual(['deja-vu', 'deja-vu-2', 'deja-vu-3']);
    await createAssistant(space, { name: 'x'.repeat(80) });
    expect((await createAssistant(space, { name: 'x'.repeat(80) })).slug).toBe(`${'x'.repeat(58)}-2`);
  });

  it('gives concurrent creates of the same name distinct slugs', async () => {
    const space = await ctx.tenant();
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        request(ctx.app)
          .post(`${path(space)}/`)
          .set(space.auth)
          .send({ name: 'Racer' }),
      ),
    );
    expect(results.map((res) => res.status)).toEqual(Array(8).fill(201));
    const slugs = results.map((res) => res.body.slug as string).sort();
    expect(slugs).toEqual(['racer', 'racer-2', 'racer-3', 'racer-4', 'racer-5', 'racer-6', 'racer-7', 'racer-8'].sort());
  });

  it('reports a slug taken meanwhile instead of failing, so the create can retry', async () => {
    const space = await ctx.tenant();
    await createAssistant(space, { name: 'Taken' });
    const fields = { name: 'Taken', avatar: null, description: null, visibility: 'private', definition_visibility: 'private' } as const;
    const insert = { ...fields, app_id: space.app_id, slug: 'taken', added_by: 'someone', config: null };
    expect(await new AssistantRepository(ctx.services.db).insert(insert)).toBeNull();
  });

  it('requires a name of 1 to 100 characters', async () => {
    const missing = await request(ctx.app)
      .post(`${path(alice)}/`)
      .set(alice.auth)
      .send({});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      error: { message: "Missing required field 'name'.", type: 'invalid_request_error', code: 'missing_field', param: 'name' },
    });
    expect(
      (
        await request(ctx.app)
          .post(`${path(alice)}/`)
          .set(alice.auth)
          .send({ name: '' })
      ).status,
    ).toBe(400);
    expect(
      (
        await request(ctx.app)
          .post(`${path(alice)}/`)
          .set(alice.auth)
          .send({ name: 'n'.repeat(101) })
      ).status,
    ).toBe(400);
    expect(
      (
        await request(ctx.app)
          .post(`${path(alice)}/`)
          .set(alice.auth)
          .send({ name: 'n'.repeat(100) })
      ).status,
    ).toBe(201);
  });

  it.each(['visibility', 'definition_visibility'])('accepts only public, organization and private as %s', async (field) => {
    const res = await request(ctx.app)
      .post(`${path(alice)}/`)
      .set(alice.auth)
      .send({ name: 'V', [field]: 'secret' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param: field });
    for (const value of ['public', 'organization', 'private']) {
      const ok = await request(ctx.app)
        .post(`${path(alice)}/`)
        .set(alice.auth)
        .send({ name: 'V', [field]: value });
      expect(ok.body[field]).toBe(value);
    }
  });

  it('rejects an unknown field of assistant_config', async () => {
    const res = await request(ctx.app)
      .post(`${path(alice)}/`)
      .set(alice.auth)
      .send({ name: 'C', assistant_config: { colour: 'red' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        message: "Unrecognized field 'assistant_config.colour'.",
        type: 'invalid_request_error',
        code: 'unknown_field',
        param: 'assistant_config.colour',
      },
    });
  });

  it.each([
    [{ temperature: 2.5 }, 'assistant_config.temperature'],
    [{ top_p: -0.1 }, 'assistant_config.top_p'],
    [{ max_tokens: 0 }, 'assistant_config.max_tokens'],
    [{ max_tokens: 1.5 }, 'assistant_config.max_tokens'],
    [{ plugins: ['web-search', 'mind-reading'] }, 'assistant_config.plugins[1]'],
    [{ plugins: ['web-search', 'web-search'] }, 'assistant_config.plugins'],
    [{ response_format: { type: 'xml' } }, 'assistant_config.response_format.type'],
    [{ prompt_id: 'not-a-uuid' }, 'assistant_config.prompt_id'],
    [{ instructions: 42 }, 'assistant_config.instructions'],
  ])('rejects assistant_config %j naming %s', async (config, param) => {
    const res = await request(ctx.app)
      .post(`${path(alice)}/`)
      .set(alice.auth)
      .send({ name: 'C', assistant_config: config });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('accepts a prompt of the organization or an approved public one, nothing else', async () => {
    const prompt = { prompt: 'You help.', title: 'Helper', description: 'Helps.' };
    const own = await request(ctx.app).post('/v1/prompts').set(alice.auth).send(prompt);
    const publicPrompt = await request(ctx.app).post('/v1/internal/prompts').set(owner.auth).send(prompt);
    const foreignDraft = await request(ctx.app).post('/v1/prompts').set(bob.auth).send(prompt);
    for (const id of [own.body.id, publicPrompt.body.id]) await createAssistant(alice, { name: 'P', assistant_config: { prompt_id: id } });
    for (const id of [foreignDraft.body.id, UNKNOWN_ID]) {
      const res = await request(ctx.app)
        .post(`${path(alice)}/`)
        .set(alice.auth)
        .send({ name: 'P', assistant_config: { prompt_id: id } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: {
          message: "Invalid value for 'assistant_config.prompt_id': no prompt with this id is available to your organization.",
          type: 'invalid_request_error',
          code: 'invalid_value',
          param: 'assistant_config.prompt_id',
        },
      });
    }
  });

  it('accepts a catalog model name or the automatic-selection name as model', async () => {
    await createAssistant(alice, { name: 'M', assistant_config: { model: 'gpt-4o-mini' } });
    await createAssistant(alice, { name: 'M', assistant_config: { model: ctx.services.config.autoModelName } });
    const res = await request(ctx.app)
      .post(`${path(alice)}/`)
      .set(alice.auth)
      .send({ name: 'M', assistant_config: { model: 'gpt-9-imaginary' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'model_not_available', param: 'assistant_config.model' });
  });

  it("answers 404 for another organization's Space exactly as for an unknown one", async () => {
    const foreign = await request(ctx.app)
      .post(`${path(alice, bob.app_id)}/`)
      .set(alice.auth)
      .send({ name: 'X' });
    const unknown = await request(ctx.app)
      .post(`${path(alice, UNKNOWN_ID)}/`)
      .set(alice.auth)
      .send({ name: 'X' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect(foreign.body.error).toMatchObject({ code: 'not_found', param: 'app_id' });
  });

  it('requires assistants:write', async () => {
    const viewer = await ctx.tenant({ role: 'viewer' });
    const res = await request(ctx.app)
      .post(`${path(viewer)}/`)
      .set(viewer.auth)
      .send({ name: 'X' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'permission_denied' });
  });
});

describe('GET and PUT /v1/apps/{app_id}/assistants/{assistant_id}', () => {
  it('shows the configuration of the current version to its creator', async () => {
    const config = { instructions: 'Be kind.', max_tokens: 200 };
    const { id, version_id } = await createAssistant(alice, { name: 'Kind', assistant_config: config });
    const res = await request(ctx.app)
      .get(`${path(alice)}/${id}`)
      .set(alice.auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, slug: 'kind', version: 1, version_id, assistant_config: config });
  });

  it('hides a private definition from other users of the organization, and a private assistant altogether', async () => {
    const secret = await createAssistant(alice, { name: 'S', visibility: 'organization', assistant_config: { instructions: 'x' } });
    const shared = await createAssistant(alice, {
      name: 'S',
      visibility: 'organization',
      definition_visibility: 'organization',
      assistant_config: { instructions: 'y' },
    });
    const hidden = await createAssistant(alice, { name: 'H' });
    const asColleague = (id: string) =>
      request(ctx.app)
        .get(`${path(alice)}/${id}`)
        .set(alicesColleague.auth);

    const secretView = await asColleague(secret.id);
    expect(secretView.status).toBe(200);
    expect(secretView.body).not.toHaveProperty('assistant_config');
    expect((await asColleague(shared.id)).body.assistant_config).toEqual({ instructions: 'y' });
    expect((await asColleague(hidden.id)).status).toBe(404);

    const list = await request(ctx.app)
      .get(`${path(alice)}?limit=100`)
      .set(alicesColleague.auth);
    const listed = list.body.data.map((a: { id: string }) => a.id);
    expect(listed).toEqual(expect.arrayContaining([secret.id, shared.id]));
    expect(listed).not.toContain(hidden.id);

    const edit = await request(ctx.app)
      .put(`${path(alice)}/${secret.id}`)
      .set(alicesColleague.auth)
      .send({ name: 'Mine now' });
    expect(edit.status).toBe(403);
    expect(edit.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied', param: null });
  });

  it('updates some fields, keeps the slug, and versions a changed configuration', async () => {
    const created = await createAssistant(alice, { name: 'Versioned', description: 'd', assistant_config: { temperature: 1 } });
    const url = `${path(alice)}/${created.id}`;

    const renamed = await request(ctx.app).put(url).set(alice.auth).send({ name: 'Renamed', avatar: 'https://example.com/a.png' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      name: 'Renamed',
      slug: 'versioned',
      description: 'd',
      avatar: 'https://example.com/a.png',
      version_id: created.version_id,
    });

    const same = await request(ctx.app)
      .put(url)
      .set(alice.auth)
      .send({ assistant_config: { temperature: 1 } });
    expect(same.body.version_id).toBe(created.version_id);

    const changed = await request(ctx.app)
      .put(url)
      .set(alice.auth)
      .send({ assistant_config: { temperature: 0.5, top_p: 0.9 } });
    expect(changed.body.version_id).not.toBe(created.version_id);
    const cleared = await request(ctx.app).put(url).set(alice.auth).send({ assistant_config: null, description: null });
    expect(cleared.body.description).toBeNull();

    const detail = await request(ctx.app).get(url).set(alice.auth);
    expect(detail.body).toMatchObject({ version: 3, version_id: cleared.body.version_id, assistant_config: null, name: 'Renamed' });
    const versions = await ctx.services.db.assistantVersion.findMany({ where: { assistant_id: created.id }, orderBy: { version: 'asc' } });
    expect(versions.map((v) => [v.version, v.assistant_config])).toEqual([
      [1, { temperature: 1 }],
      [2, { temperature: 0.5, top_p: 0.9 }],
      [3, null],
    ]);
  });

  it('numbers concurrent configuration changes one after the other', async () => {
    const { id } = await createAssistant(alice, { name: 'Busy' });
    const results = await Promise.all(
      [0.1, 0.2, 0.3, 0.4].map((temperature) =>
        request(ctx.app)
          .put(`${path(alice)}/${id}`)
          .set(alice.auth)
          .send({ assistant_config: { temperature } }),
      ),
    );
    expect(results.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    const versions = await ctx.services.db.assistantVersion.findMany({ where: { assistant_id: id }, orderBy: { version: 'asc' } });
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4, 5]);
  });

  it('validates the update body like the create body', async () => {
    const { id } = await createAssistant(alice);
    const res = await request(ctx.app)
      .put(`${path(alice)}/${id}`)
      .set(alice.auth)
      .send({ assistant_config: { colour: 'blue' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'unknown_field', param: 'assistant_config.colour' });
    expect(
      (
        await request(ctx.app)
          .put(`${path(alice)}/${id}`)
          .set(alice.auth)
          .send({ slug: 'mine' })
      ).body.error.param,
    ).toBe('slug');
  });

  it("answers 404 for another organization's assistant exactly as for an unknown one", async () => {
    const { id } = await createAssistant(bob, { name: 'B', visibility: 'public', definition_visibility: 'public' });
    const cases = [
      [`${path(bob)}/${id}`, `${path(bob)}/${UNKNOWN_ID}`],
      [`${path(alice)}/${id}`, `${path(alice)}/${UNKNOWN_ID}`],
    ];
    for (const [foreign, unknown] of cases) {
      const a = await request(ctx.app).get(foreign).set(alice.auth);
      const b = await request(ctx.app).get(unknown).set(alice.auth);
      expect(a.status).toBe(404);
      expect(a.body).toEqual(b.body);
      const put = await request(ctx.app).put(foreign).set(alice.auth).send({ name: 'Stolen' });
      expect(put.status).toBe(404);
    }
    expect(
      (
        await request(ctx.app)
          .get(`${path(bob)}/${id}`)
          .set(bob.auth)
      ).body.name,
    ).toBe('B');
  });

  it('answers 404 for a malformed id', async () => {
    const res = await request(ctx.app)
      .get(`${path(alice)}/not-a-uuid`)
      .set(alice.auth);
    expect(res.status).toBe(404);
    expect(res.body.error.param).toBe('assistant_id');
  });
});

describe('GET /v1/apps/{app_id}/assistants', () => {
  it('pages through the assistants of a Space, newest first', async () => {
    const space = await ctx.tenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await createAssistant(space, { name: `A${i}` })).id);
    const first = await request(ctx.app)
      .get(`${path(space)}?limit=2`)
      .set(space.auth);
    expect(first.body).toMatchObject({ object: 'list', has_more: true, first_id: ids[4], last_id: ids[3] });
    expect(first.body.data[0]).not.toHaveProperty('assistant_config');
    const second = await request(ctx.app)
      .get(`${path(space)}?limit=2&after=${first.body.last_id}`)
      .set(space.auth);
    expect(second.body.data.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    const third = await request(ctx.app)
      .get(`${path(space)}?limit=2&after=${second.body.last_id}`)
      .set(space.auth);
    expect(third.body).toMatchObject({ has_more: false, first_id: ids[0], last_id: ids[0] });
    const foreignCursor = await request(ctx.app)
      .get(`${path(alice)}?after=${ids[0]}`)
      .set(alice.auth);
    expect(foreignCursor.status).toBe(400);
    expect(foreignCursor.body.error.param).toBe('after');
  });

  it("answers 404 for another organization's Space", async () => {
    const res = await request(ctx.app).get(path(bob)).set(alice.auth);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found', param: 'app_id' });
  });
});
