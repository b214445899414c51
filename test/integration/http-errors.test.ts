import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { MAX_JSON_DEPTH } from '../../src/schemas/input-guard';
import { allRoutes } from '../../src/http/routes/index';
import { RESOURCE_OF_PATH_ID } from '../../src/http/unknown-path-id';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { watchLoopStalls } from '../helpers/loop-stalls';

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
    const res = await request(ctx.app)
      .post('/v1/prompts')
      .set(tenant.auth)
      .send({ ...valid, title: 42 });
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
    expect(res.body.error).toMatchObject({ code: 'payload_too_large', type: 'invalid_request_error', param: 'body' });
    expect(res.body.error.message).toBe('The request body is larger than the 1048576 bytes allowed (BODY_LIMIT_BYTES).');
    expect(await ctx.services.db.prompt.count({ where: { org_id: tenant.org_id } })).toBe(before);
  });
});

describe('routing', () => {
  it("answers 404 with the route's hint to a multipart body for a route that does not exist, not 415", async () => {
    const res = await request(ctx.app)
      .post('/v1/audio/transcriptions')
      .set(tenant.auth)
      .attach('file', Buffer.from('RIFF'), 'a.wav')
      .field('model', 'whisper-1');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found' });
    expect(res.body.error.message).toContain('No route for POST /v1/audio/transcriptions. Audio is transcribed by the plugin transcribe-audio');
    // A route that exists still refuses a body that is not JSON.
    const known = await request(ctx.app).post('/v1/prompts').set(tenant.auth).attach('file', Buffer.from('x'), 'a.txt');
    expect(known.status).toBe(415);
  });

  it.each([
    ['/v1/images/generations', 'image-generation-generic'],
    ['/v1/moderations', 'no moderation endpoint'],
    ['/v1/completions', 'POST /v1/chat/completions'],
    ['/v1/no-such-route', null],
  ])('names what serves the need of %s in its 404', async (path, hint) => {
    const res = await request(ctx.app).post(path).set(tenant.auth).send({ prompt: 'hi' });
    expect(res.status).toBe(404);
    if (hint) expect(res.body.error.message).toContain(hint);
    else expect(res.body.error.message).toBe(`No route for POST ${path}.`);
  });

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

/** The answer to an unknown id, for comparing byte for byte. */
const notFound = (what: string, param: string) => ({ error: { message: `${what} not found`, type: 'not_found_error', code: 'not_found', param } });
const nulRefused = (param: string) => ({
  error: { message: `Invalid value for '${param}': the NUL character (U+0000) is not accepted.`, type: 'invalid_request_error', code: 'invalid_value', param },
});

describe('the NUL character', () => {
  it('in a Space name answers 400 naming the field, and stores nothing', async () => {
    const before = await ctx.services.db.app.count({ where: { org_id: tenant.org_id } });
    const res = await request(ctx.app).post('/v1/apps').set(tenant.auth).send({ name: 'a\u0000b' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(nulRefused('name'));
    expect(await ctx.services.db.app.count({ where: { org_id: tenant.org_id } })).toBe(before);
  });

  it.each([
    ['a message', { messages: [{ role: 'user', content: 'hi\u0000' }] }, 'messages[0].content'],
    ['a content part', { messages: [{ role: 'user', content: [{ type: 'text', text: '\u0000' }] }] }, 'messages[0].content[0].text'],
    ['a label', { messages: [{ role: 'user', content: 'hi' }], custom_headers: { labels: { team: 'a\u0000' } } }, 'custom_headers.labels.team'],
    ['the model', { model: '\u0000', messages: [{ role: 'user', content: 'hi' }] }, 'model'],
    ['an unknown field passed to the upstream', { messages: [{ role: 'user', content: 'hi' }], metadata: { note: ['\u0000'] } }, 'metadata.note[0]'],
  ])('in %s of a completion answers 400 at once, naming the field', async (_what, body, param) => {
    const clock = watchLoopStalls();
    const res = await request(ctx.app).post('/v1/chat/completions').set(tenant.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(nulRefused(param));
    // Refused at the edge: no job, no worker, no liveness wait (on the process's own time, however loaded the machine).
    expect(clock.ownMs()).toBeLessThan(2000);
    clock.stop();
  });

  it('in a field name answers 400 naming the object that holds it', async () => {
    const body = { messages: [{ role: 'user', content: 'hi' }], custom_headers: { labels: { 'te\u0000am': 'x' } } };
    const res = await request(ctx.app).post('/v1/chat/completions').set(tenant.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        message: "Invalid field name in 'custom_headers.labels': the NUL character (U+0000) is not accepted.",
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'custom_headers.labels',
      },
    });
  });

  it.each([
    { what: 'a prompt text', path: '/v1/prompts', body: { prompt: 'p\u0000', title: 't', description: 'd' }, param: 'prompt' },
    { what: 'a prompt title', path: '/v1/prompts', body: { prompt: 'p', title: '\u0000', description: 'd' }, param: 'title' },
    { what: 'a prompt description', path: '/v1/prompts', body: { prompt: 'p', title: 't', description: 'd\u0000' }, param: 'description' },
    { what: 'a Space description', path: '/v1/apps', body: { name: 'n', description: '\u0000' }, param: 'description' },
    { what: 'Space instructions', path: '/v1/apps', body: { name: 'n', settings: { instructions: 'x\u0000' } }, param: 'settings.instructions' },
  ])('in $what answers 400 naming the field', async ({ path, body, param }) => {
    const res = await request(ctx.app).post(path).set(tenant.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(nulRefused(param));
  });

  it('in an assistant, a conversation and a rating answers 400 naming the field', async () => {
    const base = `/v1/apps/${tenant.app_id}`;
    const assistant = await request(ctx.app)
      .post(`${base}/assistants`)
      .set(tenant.auth)
      .send({ name: 'a', assistant_config: { instructions: '\u0000' } });
    expect(assistant.body).toEqual(nulRefused('assistant_config.instructions'));
    const conversation = await request(ctx.app).post(`${base}/conversations/create`).set(tenant.auth).send({ name: '\u0000' });
    expect(conversation.body).toEqual(nulRefused('name'));
    const rating = await request(ctx.app).put(`/v1/logs/${randomUUID()}/rating`).set(tenant.auth).send({ good_answer: true, feedback: '\u0000' });
    expect(rating.body).toEqual(nulRefused('feedback'));
  });

  it('like an unpaired surrogate (which jsonb refuses): 400 naming the field', async () => {
    const body = '{"name":"a","assistant_config":{"instructions":"x\\ud800y"}}';
    const res = await request(ctx.app).post(`/v1/apps/${tenant.app_id}/assistants`).set(tenant.auth).set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        message: "Invalid value for 'assistant_config.instructions': an unpaired UTF-16 surrogate (\\ud800-\\udfff) is not accepted.",
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'assistant_config.instructions',
      },
    });
    // A well-formed pair (an emoji sent as two escapes) is one character, and is stored.
    const pair = await request(ctx.app).post('/v1/apps').set(tenant.auth).set('Content-Type', 'application/json').send('{"name":"\\ud83d\\ude00"}');
    expect(pair.status).toBe(201);
    expect(pair.body.app.name).toBe('😀');
  });

  it('in a query value answers 400 naming the parameter', async () => {
    const res = await request(ctx.app).get('/v1/logs?app_id=%00').set(tenant.auth);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(nulRefused('app_id'));
  });

  it('in a path id answers the 404 of an unknown id', async () => {
    const res = await request(ctx.app).get('/v1/logs/%00').set(tenant.auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFound('Log', 'log_id'));
  });
});

describe('ids in the path', () => {
  it.each([
    ['get', '/v1/apps/%C0%AF', notFound('Space', 'app_id')],
    ['get', '/v1/logs/%ff', notFound('Log', 'log_id')],
    ['post', '/v1/prompts/%ff%fe/withdraw', notFound('Prompt', 'prompt_id')],
  ] as const)('%s %s (undecodable) answers exactly the 404 of an unknown id', async (method, path, expected) => {
    const unknown = await request(ctx.app)
      [method](path.replace(/\/%[^/]+/, `/${randomUUID()}`))
      .set(tenant.auth);
    const malformed = await request(ctx.app)[method](path).set(tenant.auth);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(expected);
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual(expected);
  });

  /** A body each route accepts, so that validation passes and the id is looked up. */
  const VALID_BODIES: Record<string, object> = {
    setAppModelActive: { active: true },
    setAppFailoverChain: { model_ids: [] },
    createAssistant: { name: 'a' },
    createConversation: {},
    declinePrompt: { decline_reason: 'r' },
    rateLog: { good_answer: true },
    saveLog: { is_saved_for_later: true },
  };

  it('every route answers a malformed first id exactly like an unknown one', async () => {
    const routes = allRoutes(ctx.services).filter(({ meta }) => meta.path.includes('{'));
    expect(routes.length).toBeGreaterThan(10);
    for (const { meta } of routes) {
      const withFirst = (first: string) => meta.path.replace(/\{[^}]+\}/, first).replace(/\{[^}]+\}/g, () => randomUUID());
      const send = (path: string) =>
        request(ctx.app)
          [meta.method](path)
          .set(tenant.auth)
          .send(VALID_BODIES[meta.operationId] ?? {});
      const unknown = await send(withFirst(randomUUID()));
      for (const garbage of ['not-a-uuid', '%ff', '%C0%AF', '%00', 'x'.repeat(10_240)]) {
        const malformed = await send(withFirst(garbage));
        expect({ route: `${meta.method} ${meta.path}`, garbage: garbage.slice(0, 12), status: malformed.status, body: malformed.body }).toEqual({
          route: `${meta.method} ${meta.path}`,
          garbage: garbage.slice(0, 12),
          status: unknown.status,
          body: unknown.body,
        });
      }
    }
  });

  it('every route answers a malformed second id (after the real Space) exactly like an unknown one', async () => {
    const routes = allRoutes(ctx.services).filter(({ meta }) => /^\/v1\/apps\/\{app_id\}\/.*\{/.test(meta.path));
    expect(routes.length).toBeGreaterThan(4);
    for (const { meta } of routes) {
      const withSecond = (second: string) => meta.path.replace('{app_id}', tenant.app_id).replace(/\{[^}]+\}/, second);
      const send = (path: string) =>
        request(ctx.app)
          [meta.method](path)
          .set(tenant.auth)
          .send(VALID_BODIES[meta.operationId] ?? {});
      const unknown = await send(withSecond(randomUUID()));
      expect(unknown.status).toBe(404);
      for (const garbage of ['not-a-uuid', '%ff%fe', '%00']) {
        const malformed = await send(withSecond(garbage));
        expect({ route: `${meta.method} ${meta.path}`, garbage, body: malformed.body }).toEqual({
          route: `${meta.method} ${meta.path}`,
          garbage,
          body: unknown.body,
        });
      }
    }
  });

  it('names the resource of every path id of every route', () => {
    const names = allRoutes(ctx.services).flatMap(({ meta }) => [...meta.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string));
    expect([...new Set(names)].filter((name) => !(name in RESOURCE_OF_PATH_ID))).toEqual([]);
  });

  it('an undecodable path outside the API routes is a JSON 404', async () => {
    const res = await request(ctx.app).get('/docs/assets/%ff');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { message: 'No route for GET /docs/assets/%ff.', type: 'not_found_error', code: 'not_found', param: null } });
  });
});

describe('integers', () => {
  const tooBig = (param: string) => ({
    error: {
      message: `Invalid value for '${param}': Too big: expected number to be <=2147483647.`,
      type: 'invalid_request_error',
      code: 'invalid_value',
      param,
    },
  });

  it('rate_limit 2147483648 answers 400 naming the field; 2147483647 is stored', async () => {
    const over = await request(ctx.app).post('/v1/apps').set(tenant.auth).send({ name: 'big', rate_limit: 2147483648 });
    expect(over.status).toBe(400);
    expect(over.body).toEqual(tooBig('rate_limit'));
    const max = await request(ctx.app).post('/v1/apps').set(tenant.auth).send({ name: 'big', rate_limit: 2147483647 });
    expect(max.status).toBe(201);
    expect(max.body.app.rate_limit).toBe(2147483647);
  });

  it.each([
    { path: '/v1/apps', body: { name: 'n', settings: { max_tokens: 2 ** 31 } }, param: 'settings.max_tokens' },
    { path: '/v1/apps', body: { name: 'n', policies: { optimize_internal_requests: 2 ** 31 } }, param: 'policies.optimize_internal_requests' },
    { path: '/v1/chat/completions', body: { max_tokens: 2 ** 31, messages: [{ role: 'user', content: 'hi' }] }, param: 'max_tokens' },
    { path: '/v1/chat/completions', body: { max_completion_tokens: 2 ** 31, messages: [{ role: 'user', content: 'hi' }] }, param: 'max_completion_tokens' },
  ])('POST $path with $param past int4 answers 400 naming the field', async ({ path, body, param }) => {
    const res = await request(ctx.app).post(path).set(tenant.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(tooBig(param));
  });

  it('an assistant max_tokens past int4 answers 400 naming the field', async () => {
    const res = await request(ctx.app)
      .post(`/v1/apps/${tenant.app_id}/assistants`)
      .set(tenant.auth)
      .send({ name: 'a', assistant_config: { max_tokens: 2 ** 31 } });
    expect(res.body).toEqual(tooBig('assistant_config.max_tokens'));
  });

  it('top_logprobs passes through but must be an integer from 0 to 20', async () => {
    const res = await request(ctx.app)
      .post('/v1/chat/completions')
      .set(tenant.auth)
      .send({ top_logprobs: 2 ** 31, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        message: "Invalid value for 'top_logprobs': expected an integer from 0 to 20.",
        type: 'invalid_request_error',
        code: 'invalid_value',
        param: 'top_logprobs',
      },
    });
  });

  it('a date PostgreSQL cannot store (year 0) answers 400 naming the field', async () => {
    const res = await request(ctx.app).post(`/v1/apps/${tenant.app_id}/conversations/create`).set(tenant.auth).send({ added_on: '0000-06-01T00:00:00Z' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_value', param: 'added_on' });
  });
});

describe('nesting', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  const tooDeep = {
    error: { message: `The body is nested deeper than ${MAX_JSON_DEPTH} levels.`, type: 'invalid_request_error', code: 'invalid_value', param: 'body' },
  };
  const post = (text: string) => request(ctx.app).post('/v1/prompts').set(tenant.auth).set('Content-Type', 'application/json').send(text);

  it(`accepts ${MAX_JSON_DEPTH} levels (then validates) and refuses one more, however deep`, async () => {
    // The body object is level 1, so the field may hold MAX_JSON_DEPTH - 1 levels.
    const deepest = await post(`{"prompt":${nested(MAX_JSON_DEPTH - 1)}}`);
    expect(deepest.status).toBe(400);
    expect(deepest.body.error).toMatchObject({ code: 'invalid_value', param: 'prompt' });
    for (const depth of [MAX_JSON_DEPTH, 100_000]) {
      const res = await post(`{"prompt":${nested(depth)}}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(tooDeep);
    }
  });
});

describe('unreadable bodies', () => {
  /** superagent would JSON-encode a Buffer sent as application/json; these bytes go as they are. */
  const asIs = (bytes: Buffer): string => bytes as unknown as string;

  it('a gzip body that does not inflate answers 400', async () => {
    const res = await request(ctx.app)
      .post('/v1/prompts')
      .set(tenant.auth)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .serialize(asIs)
      .send(Buffer.from('{"prompt":"p"}'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { message: 'The request body could not be read.', type: 'invalid_request_error', code: 'invalid_request', param: 'body' },
    });
  });

  it('a gzip body that inflates is read', async () => {
    const res = await request(ctx.app)
      .post('/v1/prompts')
      .set(tenant.auth)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .serialize(asIs)
      .send(gzipSync(JSON.stringify(valid)));
    expect(res.status).toBe(201);
  });
});

describe('bodies the escape search lets through unscanned', () => {
  // A UTF-8 body without a `\u` escape skips the scan of its strings (input-guard.ts): these are the ways
  // NUL or a lone surrogate could still arrive, each refused or made harmless.
  const asIs = (bytes: Buffer): string => bytes as unknown as string;
  const post = (bytes: Buffer, headers: Record<string, string>) => request(ctx.app).post('/v1/apps').set(tenant.auth).set(headers).serialize(asIs).send(bytes);

  it('a NUL escape in a UTF-16 body is still found', async () => {
    const res = await post(Buffer.from('{"name":"a\\u0000b"}', 'utf16le'), { 'Content-Type': 'application/json; charset=utf-16le' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(nulRefused('name'));
  });

  it('a NUL escape in a gzip body is found in the inflated text', async () => {
    const res = await post(gzipSync('{"name":"a\\u0000b"}'), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(nulRefused('name'));
  });

  it('raw bytes of a surrogate (not UTF-8) arrive as U+FFFD, which is stored', async () => {
    const res = await post(Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('b"}')]), {
      'Content-Type': 'application/json',
    });
    expect(res.status).toBe(201);
    expect(res.body.app.name).toBe('a\ufffd\ufffd\ufffdb');
  });
});

describe('a saturated database', () => {
  it('answers concurrent writes beyond the connection pool with 201 or 503 and Retry-After, never 500', async () => {
    const answers = await Promise.all(Array.from({ length: 60 }, () => request(ctx.app).post('/v1/apps').set(tenant.auth).send({ name: 'crowd' })));
    for (const res of answers) {
      expect([201, 503]).toContain(res.status);
      if (res.status !== 503) continue;
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body).toEqual({ error: { message: 'The service is busy; retry shortly.', type: 'server_error', code: 'service_unavailable', param: null } });
    }
  });
});

describe('unknown paths with bad escapes', () => {
  it('name the path as it was sent', async () => {
    const res = await request(ctx.app).get('/v1/a%ffpps/x').set(tenant.auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { message: 'No route for GET /v1/a%ffpps/x.', type: 'not_found_error', code: 'not_found', param: null } });
  });
});
