import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import request from 'supertest';
import { createLogger } from '../../src/logging/logger';
import { loadSocialAccounts } from '../../src/plugins/social-post';
import { SecretBox } from '../../src/secrets/secret-box';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';

const TOKEN = 'mastodon-secret-token-7f3a9c';
const PASSWORD = 'bsky-app-pass-q1w2-e3r4';
const box = new SecretBox({ current: randomBytes(32), previous: [] });
const logLines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(chunk.toString('utf8'));
    done();
  },
});

let ctx: TestContext;
let noKey: TestContext;
let alice: Tenant;
let bob: Tenant;

beforeAll(async () => {
  ctx = createTestContext({}, { logger: createLogger('trace', {}, sink), plugins: { secrets: box } });
  noKey = createTestContext();
  [alice, bob] = await Promise.all([ctx.tenant(), ctx.tenant()]);
});
afterAll(async () => {
  await ctx.close();
  await noKey.close();
});

const update = (tenant: Tenant, body: object, on: TestContext = ctx) => request(on.app).put('/v1/apps/update').set(tenant.auth).send(body);
const accounts = {
  mastodon: { instance_url: 'https://mastodon.example', access_token: TOKEN, visibility: 'unlisted' },
  bluesky: { service_url: 'https://pds.example', identifier: 'me.example.com', app_password: PASSWORD },
};

async function newSpace(tenant: Tenant, body: object = {}): Promise<string> {
  const res = await request(ctx.app)
    .post('/v1/apps')
    .set(tenant.auth)
    .send({ name: 'Poster', ...body });
  expect(res.status).toBe(201);
  return res.body.app.id as string;
}

function expectNoSecret(text: string): void {
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(PASSWORD);
}

describe('settings.plugins["social-post"] through PUT /v1/apps/update', () => {
  it('stores the accounts, shows only the plain fields and has_* flags, and seals the secrets apart', async () => {
    const id = await newSpace(alice);
    const res = await update(alice, { id, settings: { plugins: { 'social-post': { network: 'mastodon', allow_auto_tools: true, ...accounts } } } });
    expect(res.status).toBe(200);
    const shown = {
      network: 'mastodon',
      allow_auto_tools: true,
      mastodon: { instance_url: 'https://mastodon.example', visibility: 'unlisted', has_access_token: true },
      bluesky: { service_url: 'https://pds.example', identifier: 'me.example.com', has_app_password: true },
    };
    expect(res.body.main.app.settings.plugins).toEqual({ 'social-post': shown });
    expectNoSecret(JSON.stringify(res.body));

    const got = await request(ctx.app).get(`/v1/apps/${id}`).set(alice.auth);
    expect(got.body.app.settings.plugins).toEqual({ 'social-post': shown });
    expectNoSecret(JSON.stringify(got.body));
    const listed = await request(ctx.app).get('/v1/apps').set(alice.auth);
    expectNoSecret(JSON.stringify(listed.body));

    const row = await ctx.services.db.app.findUniqueOrThrow({ where: { id } });
    expectNoSecret(JSON.stringify(row.settings));
    const secrets = await ctx.services.db.spaceSecret.findMany({ where: { app_id: id } });
    expect(secrets.map((s) => s.name).sort()).toEqual(['social-post.bluesky.app_password', 'social-post.mastodon.access_token']);
    for (const secret of secrets) {
      expect(secret.sealed).toMatch(/^v1\./);
      expectNoSecret(secret.sealed);
      expectNoSecret(Buffer.from(secret.sealed.split('.')[4] ?? '', 'base64url').toString('latin1'));
    }

    const opened = await loadSocialAccounts(ctx.services.db, id, box);
    expect(opened.mastodon).toEqual({ network: 'mastodon', instanceUrl: 'https://mastodon.example', accessToken: TOKEN, visibility: 'unlisted' });
    expect(opened.bluesky).toMatchObject({ identifier: 'me.example.com', appPassword: PASSWORD });
  });

  it('never writes a secret to the logs', async () => {
    const id = await newSpace(alice);
    await update(alice, { id, settings: { plugins: { 'social-post': accounts } } });
    await update(alice, { id, settings: { plugins: { 'social-post': { mastodon: { ...accounts.mastodon, bogus: 1 } } } } });
    await update(alice, { id, settings: { plugins: { 'social-post': { bluesky: { ...accounts.bluesky, service_url: 'ftp://nope' } } } } });
    expect(logLines.length).toBeGreaterThan(0);
    expectNoSecret(logLines.join('\n'));
  });

  it('merges key by key, and null removes an account and its secret', async () => {
    const id = await newSpace(alice);
    await update(alice, { id, settings: { plugins: { 'social-post': accounts } } });
    const res = await update(alice, { id, settings: { temperature: 0.5, plugins: { 'social-post': { mastodon: null, allow_auto_tools: true } } } });
    expect(res.status).toBe(200);
    expect(res.body.main.app.settings.plugins['social-post']).toMatchObject({ mastodon: null, allow_auto_tools: true, bluesky: { has_app_password: true } });
    expect(res.body.main.app.settings.temperature).toBe(0.5);
    const names = (await ctx.services.db.spaceSecret.findMany({ where: { app_id: id } })).map((s) => s.name);
    expect(names).toEqual(['social-post.bluesky.app_password']);
  });

  it('a Space that never set plugins shows no plugins key', async () => {
    const id = await newSpace(alice);
    const got = await request(ctx.app).get(`/v1/apps/${id}`).set(alice.auth);
    expect(got.body.app.settings).not.toHaveProperty('plugins');
  });

  it('POST /v1/apps takes the same settings and seals them too', async () => {
    const id = await newSpace(alice, { settings: { plugins: { 'social-post': { mastodon: accounts.mastodon } } } });
    expect((await loadSocialAccounts(ctx.services.db, id, box)).mastodon?.accessToken).toBe(TOKEN);
  });

  it('rejects unknown plugins and unknown fields, naming the field', async () => {
    const id = await newSpace(alice);
    const unknownPlugin = await update(alice, { id, settings: { plugins: { 'no-such-plugin': { max_results: 3 } } } });
    expect(unknownPlugin.status).toBe(400);
    expect(unknownPlugin.body.error.code).toBe('unknown_field');
    const unknownField = await update(alice, { id, settings: { plugins: { 'social-post': { mastodon: { ...accounts.mastodon, token: 'x' } } } } });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.param).toContain('social-post');
  });

  it('without PLUGIN_SECRETS_KEY a secret is refused with 400 and nothing changes', async () => {
    const id = await newSpace(alice);
    const res = await update(alice, { id, name: 'Renamed', settings: { plugins: { 'social-post': { mastodon: accounts.mastodon } } } }, noKey);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'settings.plugins.social-post.mastodon.access_token' });
    expect(res.body.error.message).toMatch(/no key for secrets/);
    const row = await ctx.services.db.app.findUniqueOrThrow({ where: { id } });
    expect(row.name).toBe('Poster');
    expect(await ctx.services.db.spaceSecret.count({ where: { app_id: id } })).toBe(0);
    // Settings without secrets still work without a key.
    expect((await update(alice, { id, settings: { plugins: { 'social-post': { allow_auto_tools: false } } } }, noKey)).status).toBe(200);
  });

  it("another organization's Space is 404 and gets no secret", async () => {
    const id = await newSpace(alice);
    const res = await update(bob, { id, settings: { plugins: { 'social-post': accounts } } });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found', param: 'id' });
    expect(await ctx.services.db.spaceSecret.count({ where: { app_id: id } })).toBe(0);
  });

  it('sandbox sync copies neither the accounts nor their secrets, and keeps the sandbox its own', async () => {
    const mainId = await newSpace(alice);
    await update(alice, { id: mainId, settings: { temperature: 0.2, plugins: { 'social-post': accounts } } });
    const first = await ctx.services.sandboxSync.run({ mainAppId: mainId, requestedBy: 'test' });
    if (first.result === 'skipped') throw new Error('expected a sandbox');
    const sandbox = await request(ctx.app).get(`/v1/apps/${first.sandboxId}`).set(alice.auth);
    expect(sandbox.body.app.settings.temperature).toBe(0.2);
    expect(sandbox.body.app.settings).not.toHaveProperty('plugins');
    expect(await ctx.services.db.spaceSecret.count({ where: { app_id: first.sandboxId } })).toBe(0);
    expect((await loadSocialAccounts(ctx.services.db, first.sandboxId, box)).mastodon).toBeNull();

    const testAccount = { ...accounts.mastodon, instance_url: 'https://test.example', access_token: 'sandbox-token' };
    expect((await update(alice, { id: first.sandboxId, settings: { plugins: { 'social-post': { mastodon: testAccount } } } })).status).toBe(200);
    await ctx.services.sandboxSync.run({ mainAppId: mainId, requestedBy: 'test' });
    const own = await loadSocialAccounts(ctx.services.db, first.sandboxId, box);
    expect(own.mastodon).toMatchObject({ instanceUrl: 'https://test.example', accessToken: 'sandbox-token' });
    expect((await loadSocialAccounts(ctx.services.db, mainId, box)).mastodon?.accessToken).toBe(TOKEN);
  });
});
