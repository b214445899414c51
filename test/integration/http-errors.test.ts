import request from 'supertest';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';

let ctx: TestContext;
let tenant: Tenant;

beforeAll(async () => {
  ctx = createTestContext();
  tenant = await ctx.tenant();
});
afterAll(() => ctx.close());

const valid = { prompt: 'p', title: 't', description: 'd' };

describe('request bodies', () => {
  it('answers 400 for malformed JSON', async () => {
    const res = await request(ctx.app).post('/v1/prompts').set(tenant.auth).set('Content-Type', 'application/json').send('{"prompt": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { message: 'The request body is not valid JSON.', type: 'invalid_request_error', code: 'invalid_json', param: 'body' },
    });
  });

  it('answers 400 naming the field for a wrong type', async () => {
    const res = await request(ctx.app).post('/v1/prompts').set(tenant.auth).send({ ...valid, title: 42 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { message: "Invalid type for 'title': expected string.", type: 'invalid_request_error', code: 'invalid_value', param: 'title' },
    });
  });

  it('answers 400 for a JSON body that is not an object', async () => {
    const res = await request(ctx.app).post('/v1/prompts').set(tenant.auth).send([1, 2]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_value');
  });

  it('answers 415 for another content type', async () => {
    const res = await request(ctx.app).post('/v1/prompts').set(tenant.auth).set('Content-Type', 'text/plain').send('hello');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      error: {
        message: "Send the body as 'Content-Type: application/json'.",
        type: 'invalid_request_error',
        code: 'unsupported_media_type',
        param: 'Content-Type',
      },
    });
  });

  it('answers 413 for an oversized body and stores nothing', async () => {
    const before = await ctx.services.db.prompt.count({ where: { org_id: tenant.org_id } });
    const res = await request(ctx.app)
      .post('/v1/prompts')
      .set(tenant.auth)
      .send({ ...valid, prompt: 'x'.repeat(1_100_000) });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'payload_too_large', type: 'invalid_request_error' });
    expect(await ctx.services.db.prompt.count({ where: { org_id: tenant.org_id } })).toBe(before);
  });
});

describe('routing', () => {
  it('answers 404 for a malformed id in the path, like an unknown id', async () => {
    const malformed = await request(ctx.app).get('/v1/prompts/not-a-uuid').set(tenant.auth);
    expect(malformed.status).toBe(404);
    expect(malformed.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const res = await request(ctx.app).delete('/v1/prompts').set(tenant.auth);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST, PUT, GET');
    expect(res.body.error.code).toBe('method_not_allowed');
  });

  it('answers 404 JSON for an unknown path outside /v1', async () => {
    const res = await request(ctx.app).get('/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { message: 'No route for GET /nothing.', type: 'not_found_error', code: 'not_found', param: null },
    });
  });

  it('echoes a sane X-Request-Id and makes one otherwise', async () => {
    const given = await request(ctx.app).get('/healthz').set('X-Request-Id', 'abc-123');
    expect(given.headers['x-request-id']).toBe('abc-123');
    const made = await request(ctx.app).get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
