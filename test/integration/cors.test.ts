import request from 'supertest';
import { corsOriginsSchema } from '../../src/config/cors-origins';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';

/** CORS over HTTP against the real app: preflights are answered before authentication. */

const contexts: TestContext[] = [];
afterAll(() => Promise.all(contexts.map((ctx) => ctx.close())));
function context(corsOrigins: ReturnType<typeof corsOriginsSchema.parse>): TestContext {
  const ctx = createTestContext({ corsOrigins });
  contexts.push(ctx);
  return ctx;
}

const preflight = (ctx: TestContext, origin: string) =>
  request(ctx.app)
    .options('/v1/chat/completions')
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST')
    .set('Access-Control-Request-Headers', 'authorization, content-type, x-stainless-os, idempotency-key');

describe('CORS_ORIGINS=* (the default)', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  beforeAll(async () => {
    ctx = context(corsOriginsSchema.parse(undefined));
    tenant = await ctx.tenant();
  });

  it('answers a preflight 204 without a key, allowing the headers the SDKs send', async () => {
    const res = await preflight(ctx, 'https://app.example.com');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain('POST');
    expect(res.headers['access-control-allow-headers']).toBe('authorization, content-type, x-stainless-os, idempotency-key');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('lets the browser read the answer and our ids, and still refuses a call without a key', async () => {
    const ok = await request(ctx.app).get('/v1/prompts').set('Origin', 'https://app.example.com').set(tenant.auth);
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    expect(ok.headers['access-control-expose-headers']).toContain('x-request-id');
    const refused = await request(ctx.app).get('/v1/prompts').set('Origin', 'https://app.example.com');
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('CORS_ORIGINS as a list', () => {
  let ctx: TestContext;
  beforeAll(() => {
    ctx = context(corsOriginsSchema.parse('https://app.example.com, http://localhost:5173/'));
  });

  it('allows the listed origins only', async () => {
    const listed = await preflight(ctx, 'http://localhost:5173');
    expect(listed.status).toBe(204);
    expect(listed.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(listed.headers.vary).toContain('Origin');
    const other = await preflight(ctx, 'https://evil.example');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS_ORIGINS=none', () => {
  it('sends no CORS headers', async () => {
    const ctx = context('none');
    const res = await request(ctx.app).get('/healthz').set('Origin', 'https://app.example.com');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS_ORIGINS parsing', () => {
  it.each([
    [undefined, '*'],
    ['*', '*'],
    ['none', 'none'],
    [' https://a.example ,http://b.example:8080 ', ['https://a.example', 'http://b.example:8080']],
  ])('%s → %j', (value, expected) => {
    expect(corsOriginsSchema.parse(value)).toEqual(expected);
  });

  it.each(['a.example', 'ftp://a.example', 'https://a.example/path', 'https://a.example,'])('refuses %s, naming it', (value) => {
    const parsed = corsOriginsSchema.safeParse(value);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain('is not *, none or an origin');
  });
});
