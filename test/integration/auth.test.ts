import request from 'supertest';
import { hashApiKey } from '../../src/auth/api-key';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import type { Role } from '../../src/domain/permissions';
import { createOrgKey } from '../../src/services/tenancy/key-admin';
import { Authenticator } from '../../src/auth/authenticator';
import { ApiKeyRepository } from '../../src/store/api-keys';

let ctx: TestContext;
let tenant: Tenant;

beforeAll(async () => {
  // Its own Redis prefix, so the wrong keys sent here count against 127.0.0.1 in this file alone, and
  // the failed-authentication throttle of no other test file sees them (nor this file theirs).
  ctx = createTestContext({ redisPrefix: `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}` });
  tenant = await ctx.tenant();
});
afterAll(() => ctx.close());

describe('bearer authentication', () => {
  it('answers 401 with a JSON error when the header is missing', async () => {
    const res = await request(ctx.app).get('/v1/prompts');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: {
        message: 'Missing Authorization header: send "Authorization: Bearer <key>".',
        type: 'authentication_error',
        code: 'missing_api_key',
        param: 'Authorization',
      },
    });
  });

  it.each([
    ['an unknown key', 'Bearer sy-unknown'],
    ['a key of another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['an empty bearer', 'Bearer '],
  ])('answers 401 for %s', async (_what, header) => {
    const res = await request(ctx.app).get('/v1/prompts').set('Authorization', header);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication_error', param: 'Authorization' });
  });

  it('accepts the key and ignores case of the scheme', async () => {
    const res = await request(ctx.app).get('/v1/prompts').set('Authorization', `bearer ${tenant.api_key}`);
    expect(res.status).toBe(200);
  });

  it('requires auth on unknown /v1 paths too, so they reveal nothing', async () => {
    expect((await request(ctx.app).get('/v1/nothing-here')).status).toBe(401);
    expect((await request(ctx.app).get('/v1/nothing-here').set(tenant.auth)).status).toBe(404);
  });

  it('stores only the SHA-256 of the key and its last four characters', async () => {
    const rows = await ctx.services.db.apiKey.findMany({ where: { org_id: tenant.org_id } });
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row?.hashed_key).toBe(hashApiKey(tenant.api_key));
    expect(row?.key_end).toBe(tenant.api_key.slice(-4));
    expect(JSON.stringify(rows)).not.toContain(tenant.api_key);
    const app = await ctx.services.db.app.findUniqueOrThrow({ where: { id: tenant.app_id } });
    expect(app.hashed_key).toBe(row?.hashed_key);
  });

  it("shows a Space's key hash only to keys that manage keys", async () => {
    const owner = await ctx.services.db.apiKey.findFirstOrThrow({ where: { org_id: tenant.org_id } });
    const keysOf = async (role: Role) => {
      const key = await createOrgKey(ctx.services.db, { orgId: tenant.org_id, role });
      return { Authorization: `Bearer ${key.api_key}` };
    };
    const asOwner = await request(ctx.app).get(`/v1/apps/${tenant.app_id}`).set(tenant.auth).expect(200);
    expect(asOwner.body.app.hashed_key).toBe(owner.hashed_key);
    for (const role of ['admin', 'member', 'viewer'] as const) {
      const auth = await keysOf(role);
      const detail = await request(ctx.app).get(`/v1/apps/${tenant.app_id}`).set(auth).expect(200);
      expect(detail.body.app.hashed_key).toBeNull();
      const listed = await request(ctx.app).get('/v1/apps').set(auth).expect(200);
      expect(JSON.stringify(listed.body)).not.toContain(owner.hashed_key);
    }
  });

  it('rejects a revoked key at once when the cache is off', async () => {
    const other = await ctx.tenant();
    await request(ctx.app).get('/v1/prompts').set(other.auth).expect(200);
    await ctx.services.db.apiKey.updateMany({ where: { org_id: other.org_id }, data: { revoked_on: new Date() } });
    const res = await request(ctx.app).get('/v1/prompts').set(other.auth);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  it('forbids what the role does not allow with 403', async () => {
    const viewer = await ctx.tenant({ role: 'viewer' });
    await request(ctx.app).get('/v1/prompts').set(viewer.auth).expect(200);
    const res = await request(ctx.app).post('/v1/prompts').set(viewer.auth).send({ prompt: 'p', title: 't', description: 'd' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: { message: "This key lacks the 'prompts:write' permission.", type: 'permission_error', code: 'permission_denied', param: null },
    });
  });
});

/** The real repository, counting the lookups that reach the database. */
class CountedKeys extends ApiKeyRepository {
  lookups = 0;

  override findActiveByHash(hashedKey: string) {
    this.lookups += 1;
    return super.findActiveByHash(hashedKey);
  }
}

describe('the key cache', () => {
  const TTL_MS = 100;
  const credentials = (key: string) => ({ authorization: `Bearer ${key}`, clientAddress: '127.0.0.1' });

  it('lets requests that miss together share one lookup, when it is cold and when it expired', async () => {
    const keys = new CountedKeys(ctx.services.db);
    const authenticator = new Authenticator(keys, { cacheTtlMs: TTL_MS });
    const concurrent = () => Promise.all(Array.from({ length: 32 }, () => authenticator.authenticate(credentials(tenant.api_key))));
    const cold = await concurrent();
    expect(keys.lookups).toBe(1);
    expect(new Set(cold.map((context) => context.orgId))).toEqual(new Set([tenant.org_id]));
    await concurrent();
    expect(keys.lookups).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, TTL_MS * 2));
    await concurrent();
    expect(keys.lookups).toBe(2);
  });

  it('does not cache an unknown key, and refuses a revoked one once its entry expires', async () => {
    const other = await ctx.tenant();
    const keys = new CountedKeys(ctx.services.db);
    const authenticator = new Authenticator(keys, { cacheTtlMs: TTL_MS });
    await expect(authenticator.authenticate(credentials('sy-unknown'))).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(authenticator.authenticate(credentials('sy-unknown'))).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect(keys.lookups).toBe(2);
    await authenticator.authenticate(credentials(other.api_key));
    await ctx.services.db.apiKey.updateMany({ where: { org_id: other.org_id }, data: { revoked_on: new Date() } });
    await authenticator.authenticate(credentials(other.api_key));
    await new Promise((resolve) => setTimeout(resolve, TTL_MS * 2));
    await expect(authenticator.authenticate(credentials(other.api_key))).rejects.toMatchObject({ code: 'invalid_api_key' });
  });
});
