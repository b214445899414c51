import request from 'supertest';
import type { Express } from 'express';
import { createOrgKey } from '../../src/services/tenancy/key-admin';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * A Space's `rate_limit` (requests per minute) as clients meet it: OpenAI's `x-ratelimit-*` headers on
 * every answer, 429 with `Retry-After` past the limit, and one count shared by every API process.
 * The limiter's arithmetic (sliding window, Retry-After) is unit-tested in test/unit/rate-limiter.test.ts.
 */

let sim: Simulator;
/** API process one, with the workers. */
let h: CompletionsHarness;
/** API process two: its own app, Space cache, rate limiter and reply channel, the same Redis and database. */
let second: TestContext;

beforeAll(async () => {
  sim = await startSimulator();
  // One Redis prefix for both processes, as one deployment's API replicas share it.
  const redisPrefix = `${process.env.REDIS_PREFIX}_limits_${uniqueSuffix()}`;
  h = startCompletionsHarness({ providers: simulatedProviders(sim), redisPrefix });
  second = createTestContext({ providers: simulatedProviders(sim), redisPrefix });
});
afterAll(async () => {
  await second.close();
  await h.close();
  await sim.close();
});
beforeEach(() => sim.reset());

/** A new Space of the tenant's organization created with this rate limit, and a key bound to it. */
async function limitedSpace(owner: Tenant, rateLimit: number): Promise<{ appId: string; auth: { Authorization: string } }> {
  const res = await request(h.app)
    .post('/v1/apps')
    .set(owner.auth)
    .send({ name: `limited ${uniqueSuffix()}`, rate_limit: rateLimit });
  expect(res.status).toBe(201);
  expect(res.body.app.rate_limit).toBe(rateLimit);
  const key = await createOrgKey(h.services.db, { orgId: owner.org_id, appId: res.body.app.id, role: 'member' });
  return { appId: res.body.app.id, auth: { Authorization: `Bearer ${key.api_key}` } };
}

const complete = (app: Express, auth: { Authorization: string }) =>
  request(app)
    .post('/v1/chat/completions')
    .set(auth)
    .send({ messages: [{ role: 'user', content: 'Hello there' }] });

const limitHeaders = (res: request.Response) => ({
  limit: res.headers['x-ratelimit-limit-requests'],
  remaining: res.headers['x-ratelimit-remaining-requests'],
  reset: res.headers['x-ratelimit-reset-requests'],
});

describe('a Space with a rate limit', () => {
  it('answers the N+1-th request of the minute with 429 and Retry-After, and every answer carries the limit headers', async () => {
    const owner = await h.tenant();
    const space = await limitedSpace(owner, 3);
    for (const remaining of ['2', '1', '0']) {
      const res = await complete(h.app, space.auth);
      expect(res.status).toBe(200);
      expect(limitHeaders(res)).toEqual({ limit: '3', remaining, reset: expect.stringMatching(/^\d+s$/) });
      expect(res.headers['retry-after']).toBeUndefined();
    }
    const refused = await complete(h.app, space.auth);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: { message: 'Rate limit of 3 requests per minute reached for this Space.', type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null },
    });
    expect(limitHeaders(refused)).toEqual({ limit: '3', remaining: '0', reset: expect.stringMatching(/^\d+s$/) });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    // At most: the rest of this minute, then 20 s of the next until the 3 requests weigh 2 in the sliding
    // estimate (test/unit/rate-limiter.test.ts checks the exact figures with a fixed clock).
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(80);
    // A refused request's reset is when a request passes again: its Retry-After.
    expect(refused.headers['x-ratelimit-reset-requests']).toBe(`${retryAfter}s`);
    // The refused request never reached a worker, let alone a provider.
    expect(sim.requests).toHaveLength(3);
  });

  it('holds across API processes: two app instances share one count', async () => {
    const owner = await h.tenant();
    const space = await limitedSpace(owner, 3);
    const first = await complete(h.app, space.auth);
    const secondRes = await complete(second.app, space.auth);
    const third = await complete(h.app, space.auth);
    expect([first, secondRes, third].map((res) => [res.status, res.headers['x-ratelimit-remaining-requests']])).toEqual([
      [200, '2'],
      [200, '1'],
      [200, '0'],
    ]);
    // The second process answered its own request: the worker replied on that process's channel.
    expect(secondRes.body.choices[0].message.content).toBe('Echo: Hello there');
    for (const app of [second.app, h.app]) {
      const refused = await complete(app, space.auth);
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    }
    expect(sim.requests).toHaveLength(3);
  });

  it('applies a change of the Space made through another API process to the very next request, counting what it refuses on the old configuration as nothing', async () => {
    // This process has the Space loaded after its first request: the next ones take from the limit and
    // confirm the loaded Space's version in one round trip (RateLimiter.takeAtStamp).
    const owner = await h.tenant();
    const space = await limitedSpace(owner, 5);
    expect(limitHeaders(await complete(h.app, space.auth))).toMatchObject({ remaining: '4' });
    expect(limitHeaders(await complete(h.app, space.auth))).toMatchObject({ remaining: '3' });
    // As the service's writers do: the change committed, then the Space's version bumped, here by the other process.
    const setActive = async (isActive: boolean) => {
      await second.services.db.app.update({ where: { id: space.appId }, data: { is_active: isActive } });
      await second.services.spaceVersions.bump([space.appId]);
    };
    await setActive(false);
    const refused = await complete(h.app, space.auth);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('space_inactive');
    await setActive(true);
    // The refused request was not counted.
    expect(limitHeaders(await complete(h.app, space.auth))).toMatchObject({ remaining: '2' });
    expect(sim.requests).toHaveLength(3);
  });

  it('counts each Space on its own', async () => {
    const owner = await h.tenant();
    const [busy, quiet] = [await limitedSpace(owner, 1), await limitedSpace(owner, 1)];
    expect((await complete(h.app, busy.auth)).status).toBe(200);
    expect((await complete(h.app, busy.auth)).status).toBe(429);
    const res = await complete(h.app, quiet.auth);
    expect(res.status).toBe(200);
    expect(limitHeaders(res)).toMatchObject({ limit: '1', remaining: '0' });
  });
});

describe('a Space without a rate limit', () => {
  it('sends no rate-limit headers', async () => {
    const owner = await h.tenant();
    const res = await complete(h.app, owner.auth);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit-requests']).toBeUndefined();
    expect(res.headers['retry-after']).toBeUndefined();
  });
});
