import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import OpenAI from 'openai';
import { createLogger } from '../../src/logging/logger';
import { createOrgKey } from '../../src/services/tenancy/key-admin';
import { permissionsFor } from '../../src/domain/permissions';
import { setModels, useSimulatedHarness } from '../helpers/completions';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import { watchLoopStalls } from '../helpers/loop-stalls';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';

/**
 * `/v1/keys` and `PUT /v1/apps/update`'s `rate_limit` over HTTP, as a client calls them (fetch; the
 * OpenAI SDK for completions), with the authentication cache on (60 s), so that revocation, rotation
 * and expiry are seen to act at once rather than when a cache entry ends.
 */

/** Every line the service logs, to check that no secret is ever written there. */
const logged: string[] = [];
const logger = createLogger(
  'debug',
  {},
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(chunk.toString('utf8'));
      done();
    },
  }),
);
const env = useSimulatedHarness({ authCacheTtlMs: 60_000 }, { logger });

let server: ListeningApp;
let owner: Tenant;
/** An organization-wide owner key of `owner`'s organization. */
let orgOwnerKey: string;
const secretsSeen: string[] = [];

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; param: string | null; message: string } };
  text: string;
}

/** `route`: the method and the path, e.g. `GET /v1/keys`. */
async function call(route: string, key: string, body?: unknown): Promise<Answer> {
  const [method, path] = route.split(' ');
  const res = await fetch(`${server.origin}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Answer['body']) : {}, text };
}

async function createKey(key: string, body: Record<string, unknown>): Promise<{ id: string; key: string } & Record<string, unknown>> {
  const res = await call('POST /v1/keys', key, body);
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 201, error: undefined });
  secretsSeen.push(res.body.key as string);
  return res.body as { id: string; key: string } & Record<string, unknown>;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Polls until `check` holds, for at most `ms`; how long it took. */
/** Polls `check` until true; answers how long that took of the process's own time (a loaded machine's stalls left out). */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const clock = watchLoopStalls();
  try {
    while (!(await check())) {
      if (clock.ownMs() > ms) throw new Error(`not within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return clock.ownMs();
  } finally {
    clock.stop();
  }
}

beforeAll(async () => {
  server = await listenOnLoopback(env.h.app);
  owner = await env.h.tenant();
  secretsSeen.push(owner.api_key);
  orgOwnerKey = (await createOrgKey(env.h.services.db, { orgId: owner.org_id, role: 'owner', name: 'org owner' })).api_key;
  secretsSeen.push(orgOwnerKey);
  await setModels(env.h.app, owner, { 'gpt-4.1-mini': true, 'claude-haiku-4-5': true, 'gemini-2.5-flash': true });
});
afterAll(async () => {
  await server.close();
});

describe('a key through its life: create, list, get, rotate, revoke', () => {
  it('shows the secret once, stores only its hash, and never lists or echoes it', async () => {
    const created = await createKey(orgOwnerKey, { name: 'ci', role: 'member' });
    expect(created).toMatchObject({
      object: 'api_key',
      name: 'ci',
      role: 'member',
      permissions: permissionsFor('member', false),
      app_id: null,
      allowed_models: null,
      expires_at: null,
      last_used_at: null,
      revoked: false,
      service_owner: false,
    });
    expect(created.key).toMatch(/^sy-[A-Za-z0-9_-]{43}$/);
    expect(created.key_end).toBe(`sy-...${created.key.slice(-4)}`);
    expect(created).not.toHaveProperty('hashed_key');

    const row = await env.h.services.db.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.hashed_key).toBe(sha256(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);

    const listed = await call('GET /v1/keys', orgOwnerKey);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ object: 'list', has_more: false });
    const mine = (listed.body.data as { id: string }[]).find((k) => k.id === created.id);
    expect(mine).toEqual({ ...created, key: undefined, last_used_at: null });
    const read = await call(`GET /v1/keys/${created.id}`, orgOwnerKey);
    expect(read.status).toBe(200);
    for (const answer of [listed, read]) {
      expect(answer.text).not.toContain(created.key);
      expect(answer.text).not.toContain(row.hashed_key);
      expect(answer.text).not.toContain('"key":');
    }

    // The key works, and its use is recorded (off the request's path, at most once a minute).
    expect((await call('GET /v1/apps', created.key)).status).toBe(200);
    await within(2000, async () => (await call(`GET /v1/keys/${created.id}`, orgOwnerKey)).body.last_used_at !== null);
  });

  it('rotates: a new secret once, the old one refused at once (though cached), same id', async () => {
    const created = await createKey(orgOwnerKey, { name: 'rotating', role: 'viewer' });
    expect((await call('GET /v1/apps', created.key)).status).toBe(200);
    const rotated = await call(`POST /v1/keys/${created.id}/rotate`, orgOwnerKey);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.key as string;
    secretsSeen.push(fresh);
    expect(rotated.body).toMatchObject({ id: created.id, object: 'api_key', name: 'rotating', role: 'viewer', key_end: `sy-...${fresh.slice(-4)}` });
    expect(fresh).not.toBe(created.key);
    const old = await call('GET /v1/apps', created.key);
    expect(old.status).toBe(401);
    expect(old.body.error?.code).toBe('invalid_api_key');
    expect((await call('GET /v1/apps', fresh)).status).toBe(200);
    const row = await env.h.services.db.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.hashed_key).toBe(sha256(fresh));
  });

  it('revokes: 401 from the very next request though the key is cached; listed only on request; a second revoke is a conflict', async () => {
    const created = await createKey(orgOwnerKey, { name: 'to revoke', role: 'member' });
    expect((await call('GET /v1/apps', created.key)).status).toBe(200);
    const deleted = await call(`DELETE /v1/keys/${created.id}`, orgOwnerKey);
    expect(deleted).toMatchObject({ status: 200, body: { id: created.id, object: 'api_key', deleted: true } });
    const refused = await call('GET /v1/apps', created.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error?.code).toBe('invalid_api_key');

    const live = await call('GET /v1/keys?limit=100', orgOwnerKey);
    expect((live.body.data as { id: string }[]).map((k) => k.id)).not.toContain(created.id);
    const all = await call('GET /v1/keys?limit=100&include_revoked=true', orgOwnerKey);
    expect((all.body.data as { id: string; revoked: boolean }[]).find((k) => k.id === created.id)).toMatchObject({
      revoked: true,
      revoked_at: expect.any(Number),
    });
    expect((await call(`DELETE /v1/keys/${created.id}`, orgOwnerKey)).status).toBe(409);
    expect((await call(`POST /v1/keys/${created.id}/rotate`, orgOwnerKey)).status).toBe(409);
  });

  it('revokes across processes: another API process sharing Redis refuses the key within a moment, not after its 60 s cache', async () => {
    let other: TestContext | null = null;
    let otherServer: ListeningApp | null = null;
    try {
      other = createTestContext({ redisPrefix: env.h.services.config.redisPrefix, authCacheTtlMs: 60_000 });
      otherServer = await listenOnLoopback(other.app);
      const created = await createKey(orgOwnerKey, { name: 'seen elsewhere', role: 'member' });
      const viaOther = () => fetch(`${otherServer?.origin}/v1/apps`, { headers: { Authorization: `Bearer ${created.key}` } });
      expect((await viaOther()).status).toBe(200);
      // Let the other process's subscription to revoked keys come up (it starts with its first cached key).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await call(`DELETE /v1/keys/${created.id}`, orgOwnerKey)).status).toBe(200);
      expect(await within(1000, async () => (await viaOther()).status === 401)).toBeLessThan(1000);
    } finally {
      await otherServer?.close();
      await other?.close();
    }
  });

  it('never writes a secret to the logs', () => {
    const text = logged.join('');
    expect(text.length).toBeGreaterThan(0);
    for (const secret of secretsSeen) expect(text).not.toContain(secret);
  });
});

describe('expiry', () => {
  it('answers 401 once a key has expired, though it was cached', async () => {
    const created = await createKey(orgOwnerKey, { name: 'short', role: 'viewer', expires_in: 1 });
    expect(created.expires_at).toEqual(expect.any(Number));
    expect((await call('GET /v1/apps', created.key)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const refused = await call('GET /v1/apps', created.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error?.code).toBe('invalid_api_key');
  });

  it('refuses an expiry in the past, or two ways of giving it', async () => {
    const past = await call('POST /v1/keys', orgOwnerKey, { name: 'old', expires_at: Math.floor(Date.now() / 1000) - 10 });
    expect(past.status).toBe(400);
    expect(past.body.error?.param).toBe('expires_at');
    const both = await call('POST /v1/keys', orgOwnerKey, { name: 'both', expires_at: Math.floor(Date.now() / 1000) + 100, expires_in: 100 });
    expect(both.status).toBe(400);
    expect(both.body.error?.param).toBe('expires_in');
    const never = await call('POST /v1/keys', orgOwnerKey, { name: 'far', expires_at: 1e15 });
    expect(never.status).toBe(400);
    expect(never.body.error?.param).toBe('expires_at');
  });
});

describe('permissions', () => {
  it('a custom set is exactly what the key can do', async () => {
    const created = await createKey(orgOwnerKey, { name: 'reader', permissions: ['apps:read', 'logs:read'] });
    expect(created).toMatchObject({ role: 'custom', permissions: ['apps:read', 'logs:read'] });
    expect((await call('GET /v1/apps', created.key)).status).toBe(200);
    const update = await call('PUT /v1/apps/update', created.key, { id: owner.app_id, name: 'renamed' });
    expect(update.status).toBe(403);
    expect(update.body.error?.code).toBe('permission_denied');
    expect((await call('GET /v1/keys', created.key)).status).toBe(403);
    expect((await call('GET /v1/models', created.key)).status).toBe(403);
  });

  it('refuses unknown permissions, and role together with permissions', async () => {
    const unknown = await call('POST /v1/keys', orgOwnerKey, { name: 'x', permissions: ['apps:fly'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.param).toMatch(/^permissions/);
    const both = await call('POST /v1/keys', orgOwnerKey, { name: 'x', role: 'viewer', permissions: ['apps:read'] });
    expect(both.status).toBe(400);
  });

  it('only keys:manage manages keys', async () => {
    const member = await createKey(orgOwnerKey, { name: 'member', role: 'member' });
    for (const [method, path] of [
      ['GET', '/v1/keys'],
      ['POST', '/v1/keys'],
      ['GET', `/v1/keys/${member.id}`],
      ['DELETE', `/v1/keys/${member.id}`],
      ['POST', `/v1/keys/${member.id}/rotate`],
    ] as const) {
      const res = await call(`${method} ${path}`, member.key, method === 'POST' && path === '/v1/keys' ? { name: 'x' } : undefined);
      expect({ path, method, status: res.status }).toEqual({ path, method, status: 403 });
    }
  });

  it('nobody hands out more than their own key can do', async () => {
    const manager = await createKey(orgOwnerKey, { name: 'manager', permissions: ['keys:manage', 'apps:read'] });
    const escalate = await call('POST /v1/keys', manager.key, { name: 'admin', role: 'admin' });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error).toMatchObject({ code: 'permission_denied', param: 'role' });
    expect(escalate.body.error?.message).toContain('apps:update');
    const custom = await call('POST /v1/keys', manager.key, { name: 'more', permissions: ['apps:read', 'apps:update'] });
    expect(custom.status).toBe(403);
    expect(custom.body.error?.param).toBe('permissions');
    await createKey(manager.key, { name: 'fewer', permissions: ['apps:read'] });

    // Nor rotate (and so see the secret of) a key that can do more.
    const admin = await createKey(orgOwnerKey, { name: 'an admin', role: 'admin' });
    expect((await call(`POST /v1/keys/${admin.id}/rotate`, manager.key)).status).toBe(403);

    // A key limited to some models, or expiring, hands out nothing wider or longer.
    const limited = await createKey(orgOwnerKey, { name: 'limited manager', role: 'owner', allowed_models: ['gpt-4.1-mini'], expires_in: 3600 });
    const wider = await call('POST /v1/keys', limited.key, { name: 'wider', allowed_models: ['gpt-4.1-mini', 'claude-haiku-4-5'] });
    expect(wider.body.error).toMatchObject({ code: 'permission_denied', param: 'allowed_models' });
    const longer = await call('POST /v1/keys', limited.key, { name: 'longer', expires_in: 7200 });
    expect(longer.body.error).toMatchObject({ code: 'permission_denied', param: 'expires_at' });
    const inherited = await createKey(limited.key, { name: 'inherits' });
    expect(inherited.allowed_models).toEqual(['gpt-4.1-mini']);
    expect(inherited.expires_at).toBe(limited.expires_at);
  });

  it('a Space-scoped manager keeps to its Space: no organization-wide key, and no sight of other keys', async () => {
    // The bootstrap key is an owner key of the Space.
    const orgWide = await call('POST /v1/keys', owner.api_key, { name: 'org-wide', app_id: null });
    expect(orgWide.status).toBe(403);
    expect(orgWide.body.error?.param).toBe('app_id');
    const inSpace = await createKey(owner.api_key, { name: 'space member', role: 'member' });
    expect(inSpace.app_id).toBe(owner.app_id);
    const orgKey = await createKey(orgOwnerKey, { name: 'org viewer', role: 'viewer' });
    const listed = await call('GET /v1/keys?limit=100', owner.api_key);
    const ids = (listed.body.data as { id: string; app_id: string | null }[]).map((k) => k.app_id);
    expect(new Set(ids)).toEqual(new Set([owner.app_id]));
    expect((await call(`GET /v1/keys/${orgKey.id}`, owner.api_key)).status).toBe(404);
    expect((await call(`DELETE /v1/keys/${orgKey.id}`, owner.api_key)).status).toBe(404);
  });

  it("answers 404 for another organization's key, whatever the call", async () => {
    const stranger = await env.h.tenant();
    const created = await createKey(orgOwnerKey, { name: 'ours', role: 'viewer' });
    for (const [method, path] of [
      ['GET', `/v1/keys/${created.id}`],
      ['DELETE', `/v1/keys/${created.id}`],
      ['POST', `/v1/keys/${created.id}/rotate`],
    ] as const) {
      const res = await call(`${method} ${path}`, stranger.api_key);
      expect({ path, method, status: res.status, code: res.body.error?.code }).toEqual({ path, method, status: 404, code: 'not_found' });
    }
    const listed = await call('GET /v1/keys?limit=100', stranger.api_key);
    expect((listed.body.data as { id: string }[]).map((k) => k.id)).not.toContain(created.id);
    expect((await call('GET /v1/apps', created.key)).status).toBe(200);
  });
});

describe('allowed_models', () => {
  let client: OpenAI;

  beforeAll(async () => {
    const created = await createKey(owner.api_key, { name: 'claude only', role: 'member', allowed_models: ['claude-haiku-4-5'] });
    client = new OpenAI({ apiKey: created.key, baseURL: `${server.origin}/v1`, maxRetries: 0 });
  });

  it('refuses a name no model answers to at creation, naming the entry, with the close names', async () => {
    const refused = await call('POST /v1/keys', owner.api_key, { name: 'typo', allowed_models: ['claude-haiku-4-5', 'claude-haiku-4-6'] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_value', param: 'allowed_models[1]' });
    expect(refused.body.error?.message).toContain("Did you mean 'claude-haiku-4-5'");
    const byNamespace = await call('POST /v1/keys', owner.api_key, { name: 'by namespace', allowed_models: ['openai/gpt-4.1-mini'] });
    expect(byNamespace.status).toBe(201);
  });

  it('refuses a named model outside the list with 403 naming `model`', async () => {
    const err = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    const apiError = err as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(403);
    expect(apiError.code).toBe('model_not_allowed');
    expect(apiError.param).toBe('model');
    expect(apiError.message).toContain('gpt-4.1-mini');
  });

  it('answers with a model on the list', async () => {
    const completion = await client.chat.completions.create({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.model).toBe('claude-haiku-4-5');
  });

  it('holds embeddings to the list too', async () => {
    const err = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'The quick brown fox' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 403, code: 'model_not_allowed', param: 'model' });
  });

  it('lists only the allowed models; ?all=true shows the others with the reason', async () => {
    const listed = (await client.models.list()).data.map((m) => m.id);
    expect(listed).toEqual(['switchyard', 'claude-haiku-4-5']);
    const all = (await client.get('/models', { query: { all: 'true' } })) as {
      data: { id: string; available: boolean; unavailable_reason: { code: string } | null }[];
    };
    expect(all.data.find((m) => m.id === 'gpt-4.1-mini')).toMatchObject({ available: false, unavailable_reason: { code: 'not_allowed_for_key' } });
    expect(all.data.find((m) => m.id === 'claude-haiku-4-5')).toMatchObject({ available: true, unavailable_reason: null });
  });

  it('routes automatically among the allowed models only', async () => {
    for (let i = 0; i < 3; i++) {
      const completion = await client.chat.completions.create({ model: 'switchyard', messages: [{ role: 'user', content: `Write a poem number ${i}` }] });
      const { metadata } = completion as typeof completion & { metadata: { scores: { candidates: { model: string }[] } } };
      expect(completion.model).toBe('claude-haiku-4-5');
      expect(metadata.scores.candidates.map((c) => c.model)).toEqual(['claude-haiku-4-5']);
    }
  });
});

describe('rate_limit through PUT /v1/apps/update', () => {
  it('sets the limit (429 past it at once), then clears it with null', async () => {
    const tenant = await env.h.tenant();
    await setModels(env.h.app, tenant, { 'gpt-4.1-mini': true });
    const client = new OpenAI({ apiKey: tenant.api_key, baseURL: `${server.origin}/v1`, maxRetries: 0 });
    const ask = () =>
      client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Hi' }] }).then(
        () => 200,
        (err: unknown) => (err instanceof OpenAI.APIError ? (err.status ?? 0) : -1),
      );
    expect(await ask()).toBe(200);

    const set = await call('PUT /v1/apps/update', tenant.api_key, { id: tenant.app_id, rate_limit: 2 });
    expect(set.status).toBe(200);
    expect((set.body.main as { app: { rate_limit: number } }).app.rate_limit).toBe(2);
    expect([await ask(), await ask(), await ask()]).toEqual([200, 200, 429]);

    const cleared = await call('PUT /v1/apps/update', tenant.api_key, { id: tenant.app_id, rate_limit: null });
    expect((cleared.body.main as { app: { rate_limit: number } }).app.rate_limit).toBe(0);
    expect(await ask()).toBe(200);
  });

  it('refuses a negative limit, naming the field', async () => {
    const res = await call('PUT /v1/apps/update', owner.api_key, { id: owner.app_id, rate_limit: -1 });
    expect(res.status).toBe(400);
    expect(res.body.error?.param).toBe('rate_limit');
  });
});

describe('the queue dashboard', () => {
  it("says in its 403 which command gets a service owner's key", async () => {
    const res = await call('GET /admin/queues', owner.api_key);
    expect(res.status).toBe(403);
    expect(res.body.error?.message).toContain('npm run -s cli -- keys create --org-id <organization id> --service-owner');
  });
});
