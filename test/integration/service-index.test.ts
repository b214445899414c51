import request from 'supertest';
import { createTestContext, type TestContext } from '../helpers/test-context';

/** `/` points newcomers to the console and the API reference: a page for a browser, JSON for an API client. */
let ctx: TestContext;

beforeAll(() => {
  ctx = createTestContext();
});
afterAll(() => ctx.close());

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('GET /', () => {
  it('gives a browser a page linking the console and the API reference', async () => {
    const res = await request(ctx.app).get('/').set('Accept', BROWSER_ACCEPT);
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html');
    expect(res.headers.vary).toMatch(/Accept/);
    expect(res.text).toContain('href="/console/"');
    expect(res.text).toContain('href="/docs"');
    expect(res.text).not.toMatch(/<script/i);
  });

  it.each([undefined, 'application/json', '*/*'])('gives an API client (Accept: %s) a JSON object naming them, 200', async (accept) => {
    const call = request(ctx.app).get('/');
    const res = await (accept ? call.set('Accept', accept) : call);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    expect(res.body).toEqual({
      object: 'service',
      name: 'Switchyard',
      console: '/console/',
      docs: '/docs',
      openapi: '/v1/openapi.json',
      api: '/v1',
      health: '/healthz',
    });
  });

  it('answers with no key, and the links lead somewhere', async () => {
    const { body } = await request(ctx.app).get('/');
    expect((await request(ctx.app).get(body.docs)).status).toBe(200);
    expect((await request(ctx.app).get(body.openapi)).status).toBe(200);
    expect((await request(ctx.app).get(body.health)).status).toBe(200);
  });

  it('leaves other unknown paths a JSON 404', async () => {
    const res = await request(ctx.app).get('/no-such-page').set('Accept', BROWSER_ACCEPT);
    expect(res.status).toBe(404);
  });
});
