import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';

/**
 * A key in `x-api-key` (Anthropic's clients) meets the same checks and failed-attempt throttle as one in
 * `Authorization`, and on the Messages routes every refusal is in Anthropic's shape. No workers: nothing
 * here reaches a completion.
 */

const LIMITS = { trustProxy: ['loopback'], authThrottleAddressLimit: 3, authThrottlePrefixLimit: 100, authThrottleWindowSeconds: 60 };

let ctx: TestContext;
let tenant: Tenant;
beforeAll(async () => {
  ctx = createTestContext({ redisPrefix: `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`, ...LIMITS });
  tenant = await ctx.tenant();
});
afterAll(() => ctx.close());

const wrongKey = () => `sy-${randomBytes(30).toString('base64url')}`;
const BODY = { model: 'switchyard', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };

function postMessage(headers: Record<string, string>) {
  return request(ctx.app)
    .post('/v1/messages')
    .set({ 'anthropic-version': '2023-06-01', ...headers })
    .send(BODY);
}

describe('x-api-key', () => {
  it('without any key: 401 authentication_error', async () => {
    const res = await postMessage({});
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });

  it('wrong keys from one address: 401 up to the limit, then 429 rate_limit_error with Retry-After, in either header', async () => {
    const address = '203.0.113.77';
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await postMessage({ 'x-api-key': wrongKey(), 'x-forwarded-for': address })).status);
    expect(statuses).toEqual([401, 401, 401]);
    const throttled = await postMessage({ 'x-api-key': wrongKey(), 'x-forwarded-for': address });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(throttled.body).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: expect.stringMatching(/^Too many failed authentication attempts/) },
    });
    // The same address is throttled whichever header the next wrong key comes in.
    const viaBearer = await request(ctx.app)
      .get('/v1/prompts')
      .set({ authorization: `Bearer ${wrongKey()}`, 'x-forwarded-for': address });
    expect(viaBearer.status).toBe(429);
    expect(viaBearer.body.error.code).toBe('too_many_failed_authentications');
  });

  it('a valid key in x-api-key passes the same checks as in Authorization', async () => {
    const prompts = await request(ctx.app).get('/v1/prompts').set('x-api-key', tenant.api_key);
    expect(prompts.status).toBe(200);
    const bearer = await request(ctx.app).get('/v1/prompts').set(tenant.auth);
    expect(prompts.body).toEqual(bearer.body);
  });
});
