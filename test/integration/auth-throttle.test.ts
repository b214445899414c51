import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { loadConfig } from '../../src/config/load';

/**
 * The failed-authentication throttle, over HTTP against the real app and Redis. supertest connects from
 * 127.0.0.1; these contexts trust loopback as a proxy (TRUST_PROXY=loopback), so X-Forwarded-For names the
 * client address. TRUST_PROXY's default trusts no proxy (see 'client address' below).
 */

const LIMITS = { trustProxy: ['loopback'], authThrottleAddressLimit: 5, authThrottlePrefixLimit: 3, authThrottleWindowSeconds: 60 };

const contexts: TestContext[] = [];
function context(overrides: Parameters<typeof createTestContext>[0] = {}): TestContext {
  const ctx = createTestContext({ redisPrefix: `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`, ...LIMITS, ...overrides });
  contexts.push(ctx);
  return ctx;
}
afterAll(() => Promise.all(contexts.map((ctx) => ctx.close())));

const wrongKey = (prefix = randomBytes(6).toString('base64url')) => `sy-${prefix}${randomBytes(26).toString('base64url')}`;

const THROTTLED_BODY = (seconds: number) => ({
  error: {
    message: `Too many failed authentication attempts; try again in ${seconds} s.`,
    type: 'rate_limit_error',
    code: 'too_many_failed_authentications',
    param: 'Authorization',
  },
});

function get(app: Express, key: string, address: string) {
  return request(app).get('/v1/prompts').set('Authorization', `Bearer ${key}`).set('X-Forwarded-For', address);
}

async function failTimes(app: Express, times: number, address: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i += 1) statuses.push((await get(app, wrongKey(), address)).status);
  return statuses;
}

describe('failed-authentication throttle per client address', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  beforeAll(async () => {
    ctx = context();
    tenant = await ctx.tenant();
  });

  it('answers 401 up to the limit, then 429 with Retry-After for that address only', async () => {
    expect(await failTimes(ctx.app, 5, '203.0.113.10')).toEqual([401, 401, 401, 401, 401]);
    const crossing = await get(ctx.app, wrongKey(), '203.0.113.10');
    expect(crossing.status).toBe(429);
    expect(crossing.headers['retry-after']).toBe('60');
    expect(crossing.body).toEqual(THROTTLED_BODY(60));
    const later = await get(ctx.app, wrongKey(), '203.0.113.10');
    expect(later.status).toBe(429);
    const seconds = Number(later.headers['retry-after']);
    expect(seconds).toBeGreaterThanOrEqual(59);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(later.body).toEqual(THROTTLED_BODY(seconds));
    expect((await get(ctx.app, wrongKey(), '203.0.113.11')).status).toBe(401);
  });

  it('counts malformed Authorization headers too', async () => {
    const malformed = () => request(ctx.app).get('/v1/prompts').set('Authorization', 'Token nope').set('X-Forwarded-For', '203.0.113.12');
    for (let i = 0; i < 5; i += 1) expect((await malformed()).status).toBe(401);
    expect((await malformed()).status).toBe(429);
  });

  it('does not count a missing header, and never throttles a key proven valid in this process', async () => {
    const address = '203.0.113.13';
    await get(ctx.app, tenant.api_key, '198.51.100.1').expect(200);
    await failTimes(ctx.app, 6, address);
    expect((await request(ctx.app).get('/v1/prompts').set('X-Forwarded-For', address)).status).toBe(401);
    expect((await get(ctx.app, tenant.api_key, address)).status).toBe(200);
  });

  it('refuses a valid key never seen in this process exactly like a wrong one, without checking it', async () => {
    const address = '203.0.113.14';
    const fresh = await ctx.tenant();
    await failTimes(ctx.app, 6, address);
    const valid = await get(ctx.app, fresh.api_key, address);
    const wrong = await get(ctx.app, wrongKey(), address);
    expect(valid.status).toBe(429);
    expect(valid.body).toEqual(wrong.body);
    // From an address in good standing the same key works, and from then on passes the throttled one too.
    await get(ctx.app, fresh.api_key, '198.51.100.2').expect(200);
    await get(ctx.app, fresh.api_key, address).expect(200);
  });

  it('keeps no key characters in Redis, and touches Redis for failures only', async () => {
    const prefix = ctx.services.config.redisPrefix;
    const monitor = await (ctx.services.redis as Redis).monitor();
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.some((arg) => arg.includes(`${prefix}:auth-failures`))) seen.push(args.join(' '));
    });
    await get(ctx.app, tenant.api_key, '198.51.100.3').expect(200);
    await get(ctx.app, tenant.api_key, '203.0.113.10').expect(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual([]);
    const secret = wrongKey('SECRETpx');
    await get(ctx.app, secret, '198.51.100.4').expect(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.length).toBeGreaterThan(0);
    monitor.disconnect();
    const keys = await ctx.services.redis.keys(`${prefix}:auth-failures:*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join(' ')).not.toContain('SECRETpx');
    expect(keys.join(' ')).not.toContain(tenant.api_key.slice(3, 11));
  });
});

describe('failed-authentication throttle per key prefix', () => {
  it('throttles one prefix from every address, and leaves other prefixes alone', async () => {
    const ctx = context();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await get(ctx.app, wrongKey('PREFIXaa'), `192.0.2.${i + 1}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const throttled = await get(ctx.app, wrongKey('PREFIXaa'), '192.0.2.99');
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual(THROTTLED_BODY(Number(throttled.headers['retry-after'])));
    expect((await get(ctx.app, wrongKey('PREFIXbb'), '192.0.2.99')).status).toBe(401);
  });
});

describe('client address', () => {
  it('cannot be dodged with X-Forwarded-For by default (no proxy trusted, not even loopback)', async () => {
    const ctx = createTestContext({
      redisPrefix: `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`,
      ...LIMITS,
      trustProxy: loadConfig().trustProxy,
      authThrottlePrefixLimit: 0,
    });
    contexts.push(ctx);
    expect(ctx.services.config.trustProxy).toBe(false);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await get(ctx.app, wrongKey(), `10.9.8.${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});

describe('across API processes', () => {
  it('holds one count for every app on the same Redis prefix', async () => {
    const redisPrefix = `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`;
    const first = context({ redisPrefix });
    const second = context({ redisPrefix });
    expect(await failTimes(first.app, 3, '203.0.113.50')).toEqual([401, 401, 401]);
    expect(await failTimes(second.app, 2, '203.0.113.50')).toEqual([401, 401]);
    expect(await failTimes(first.app, 1, '203.0.113.50')).toEqual([429]);
    const onSecond = await get(second.app, wrongKey(), '203.0.113.50');
    expect(onSecond.status).toBe(429);
    expect(onSecond.body).toEqual(THROTTLED_BODY(Number(onSecond.headers['retry-after'])));
  });
});

describe('queue dashboard', () => {
  it('throttles wrong Basic-auth passwords like wrong bearer keys', async () => {
    const ctx = context();
    const basic = () =>
      request(ctx.app)
        .get('/admin/queues')
        .set('Authorization', `Basic ${Buffer.from(`admin:${wrongKey()}`).toString('base64')}`)
        .set('X-Forwarded-For', '203.0.113.60');
    for (let i = 0; i < 5; i += 1) {
      const res = await basic();
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="switchyard queues"');
    }
    const throttled = await basic();
    expect(throttled.status).toBe(429);
    expect(throttled.headers['retry-after']).toBe('60');
    expect(throttled.body).toEqual(THROTTLED_BODY(60));
    // The API shares the count: the same address is throttled there too.
    expect((await get(ctx.app, wrongKey(), '203.0.113.60')).status).toBe(429);
  });
});
