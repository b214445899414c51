import { createOpenAI } from '@ai-sdk/openai';
import { embed, embedMany } from 'ai';
import OpenAI from 'openai';
import request from 'supertest';
import { setModels, simulatedProviders, UNBOUNDED_RESILIENCE } from '../helpers/completions';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import { startSimulator, type Simulator } from '../simulator/server';
import { metrics } from '../../src/observability/metrics';

/**
 * `POST /v1/embeddings` as clients call it: the official OpenAI SDK (`client.embeddings.create`) and the
 * Vercel AI SDK (`embed`, `embedMany`), against Switchyard on a real port, upstreams being the simulator.
 * Embeddings run in the API process: no worker is started.
 */

let sim: Simulator;
let h: TestContext;
let server: ListeningApp;
let baseURL: string;
let tenant: Tenant;
let client: OpenAI;

/** USD per input token of the catalog's OpenAI embedding models. */
const SMALL_PRICE = 0.02 / 1e6;
const LARGE_PRICE = 0.13 / 1e6;

beforeAll(async () => {
  sim = await startSimulator();
  const redisPrefix = `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`;
  h = createTestContext({ providers: simulatedProviders(sim), upstreamTimeoutMs: 2000, redisPrefix, ...UNBOUNDED_RESILIENCE });
  server = await listenOnLoopback(h.app);
  baseURL = `${server.origin}/v1`;
  tenant = await h.tenant();
  // text-embedding-3-small is on in every new Space; -large is switched on here, ada-002 is left off.
  await setModels(h.app, tenant, { 'text-embedding-3-large': true });
  client = new OpenAI({ apiKey: tenant.api_key, baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await h.close();
  await sim.close();
});

async function logOf(id: string, owner: Tenant = tenant) {
  const res = await request(h.app).get(`/v1/logs/${id}?include=children`).set(owner.auth).expect(200);
  return res.body as {
    request_type: string;
    status_code: number;
    prompt_tokens: number;
    total_tokens_cost: number;
    total_tokens_cost_savings: number;
    namespace: string;
    prompt: string;
    payload: { input: unknown };
    children: { status_code: number; total_tokens_cost: number }[];
  };
}

function apiErrorOf(err: unknown): InstanceType<typeof OpenAI.APIError> {
  if (!(err instanceof OpenAI.APIError)) throw err;
  return err;
}

describe('client.embeddings.create', () => {
  it('embeds one text as floats, under the name of the model asked for', async () => {
    const answer = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'The quick brown fox', encoding_format: 'float' });
    expect(answer.object).toBe('list');
    expect(answer.model).toBe('text-embedding-3-small');
    expect(answer.data).toHaveLength(1);
    expect(answer.data[0]).toMatchObject({ object: 'embedding', index: 0 });
    expect(answer.data[0]?.embedding).toHaveLength(1536);
    expect(answer.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
    expect(sim.requests.at(-1)?.body).toMatchObject({ model: 'text-embedding-3-small', input: ['The quick brown fox'], encoding_format: 'float' });
  });

  it('embeds a batch in input order: equal texts give equal vectors', async () => {
    const answer = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['alpha centauri', 'beta pictoris', 'alpha centauri'],
      encoding_format: 'float',
    });
    expect(answer.data.map((d) => d.index)).toEqual([0, 1, 2]);
    const [a, b, c] = answer.data.map((d) => d.embedding);
    expect(a).toEqual(c);
    expect(a).not.toEqual(b);
  });

  it("gives base64 (the SDK's default) that decodes to the float vectors", async () => {
    const input = ['vector search with base64'];
    const floats = await client.embeddings.create({ model: 'text-embedding-3-small', input, encoding_format: 'float' });
    // Without encoding_format the SDK asks for base64 and decodes it itself.
    const decoded = await client.embeddings.create({ model: 'text-embedding-3-small', input });
    expect(decoded.data[0]?.embedding).toEqual(floats.data[0]?.embedding.map((x) => Math.fround(x)));
    const raw = await client.embeddings.create({ model: 'text-embedding-3-small', input, encoding_format: 'base64' });
    expect(typeof raw.data[0]?.embedding).toBe('string');
    expect(Buffer.from(raw.data[0]?.embedding as unknown as string, 'base64')).toHaveLength(1536 * 4);
  });

  it('takes token ids, one array or several', async () => {
    const one = await client.embeddings.create({ model: 'text-embedding-3-small', input: [101, 2023, 102], encoding_format: 'float' });
    expect(one.data).toHaveLength(1);
    expect(one.usage.prompt_tokens).toBe(3);
    const two = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: [
        [101, 2023],
        [7, 8, 9],
      ],
      encoding_format: 'float',
    });
    expect(two.data).toHaveLength(2);
    expect(two.usage.prompt_tokens).toBe(5);
  });

  it('shortens the vectors with dimensions; a model that cannot is refused with 400', async () => {
    const answer = await client.embeddings.create({ model: 'text-embedding-3-large', input: 'short vectors', dimensions: 256, encoding_format: 'float' });
    expect(answer.data[0]?.embedding).toHaveLength(256);
    expect(sim.requests.at(-1)?.body).toMatchObject({ model: 'text-embedding-3-large', dimensions: 256 });
    const owner = await h.tenant();
    await setModels(h.app, owner, { 'text-embedding-ada-002': true });
    const ownClient = new OpenAI({ apiKey: owner.api_key, baseURL, maxRetries: 0 });
    const err = apiErrorOf(await ownClient.embeddings.create({ model: 'text-embedding-ada-002', input: 'x', dimensions: 256 }).catch((e: unknown) => e));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/does not support specifying dimensions/);
  });

  it("answers with the Space's cheapest active embedding model when asked for the automatic model or none", async () => {
    const automatic = await client.embeddings.create({ model: 'switchyard', input: 'which model?', encoding_format: 'float' });
    expect(automatic.model).toBe('text-embedding-3-small');
    const res = await request(h.app).post('/v1/embeddings').set(tenant.auth).send({ input: 'no model at all' }).expect(200);
    expect(res.body.model).toBe('text-embedding-3-small');
    expect(res.body.data[0].embedding).toHaveLength(1536);
  });

  it('refuses a model that does not exist with 404, and a chat or inactive model with 400, naming model', async () => {
    const unknown = apiErrorOf(await client.embeddings.create({ model: 'no-such-embedder', input: 'x' }).catch((e: unknown) => e));
    expect(unknown.status).toBe(404);
    expect(unknown.param).toBe('model');
    const chat = apiErrorOf(await client.embeddings.create({ model: 'gpt-4.1-mini', input: 'x' }).catch((e: unknown) => e));
    expect(chat.status).toBe(400);
    expect(chat.param).toBe('model');
    const inactive = apiErrorOf(await client.embeddings.create({ model: 'text-embedding-ada-002', input: 'x' }).catch((e: unknown) => e));
    expect(inactive.status).toBe(400);
    expect(inactive.param).toBe('model');
    expect(inactive.message).toMatch(/not active in this Space/);
  });

  it.each([[''], [[]], [['fine', '']], [[1.5]], [{ text: 'x' }]])('refuses input %j with 400 naming input', async (input) => {
    const res = await request(h.app).post('/v1/embeddings').set(tenant.auth).send({ model: 'text-embedding-3-small', input }).expect(400);
    expect(res.body.error.param).toMatch(/^input/);
  });

  it('refuses a missing input and a bad encoding_format, naming the field', async () => {
    const missing = await request(h.app).post('/v1/embeddings').set(tenant.auth).send({ model: 'text-embedding-3-small' }).expect(400);
    expect(missing.body.error).toMatchObject({ param: 'input', message: expect.stringMatching(/required/) });
    const format = await request(h.app).post('/v1/embeddings').set(tenant.auth).send({ input: 'x', encoding_format: 'int8' }).expect(400);
    expect(format.body.error.param).toBe('encoding_format');
  });
});

describe('logs', () => {
  it('logs each request once, with its cost, visible in GET /v1/logs', async () => {
    const { data, response } = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: ['logged text one', 'logged text two'], encoding_format: 'float' })
      .withResponse();
    const id = response.headers.get('x-switchyard-log-id') ?? '';
    const log = await logOf(id);
    expect(log).toMatchObject({
      request_type: 'embeddings',
      status_code: 200,
      namespace: 'text-embedding-3-small',
      prompt_tokens: data.usage.prompt_tokens,
      prompt: 'logged text one',
    });
    expect(log.total_tokens_cost).toBeCloseTo(data.usage.prompt_tokens * SMALL_PRICE, 12);
    expect(log.total_tokens_cost_savings).toBe(0);
    expect(log.payload.input).toEqual(['logged text one', 'logged text two']);
    expect(log.children).toHaveLength(1);
    const listed = await request(h.app).get('/v1/logs').set(tenant.auth).expect(200);
    expect((listed.body.data as { id: string }[]).filter((l) => l.id === id)).toHaveLength(1);
  });

  it("counts savings against the Space's benchmark when it is an embedding model", async () => {
    const owner = await h.tenant();
    const ids = await setModels(h.app, owner, { 'text-embedding-3-large': false });
    await request(h.app).put('/v1/apps/update').set(owner.auth).send({ id: owner.app_id, benchmark_model_id: ids['text-embedding-3-large'] }).expect(200);
    const ownClient = new OpenAI({ apiKey: owner.api_key, baseURL, maxRetries: 0 });
    const { data, response } = await ownClient.embeddings
      .create({ model: 'text-embedding-3-small', input: 'cheaper than the benchmark', encoding_format: 'float' })
      .withResponse();
    const log = await logOf(response.headers.get('x-switchyard-log-id') ?? '', owner);
    expect(log.total_tokens_cost_savings).toBeCloseTo(data.usage.prompt_tokens * (LARGE_PRICE - SMALL_PRICE), 12);
  });

  it('masks the inputs at privacy level 2 and keeps nothing at level 3, where only GDPR models answer', async () => {
    const owner = await h.tenant();
    await setModels(h.app, owner, { 'mistral-embed': true });
    const ownClient = new OpenAI({ apiKey: owner.api_key, baseURL, maxRetries: 0 });
    await request(h.app)
      .put('/v1/apps/update')
      .set(owner.auth)
      .send({ id: owner.app_id, policies: { privacy_level: 2 } })
      .expect(200);
    const masked = await ownClient.embeddings
      .create({ model: 'text-embedding-3-small', input: ['secret one', 'secret two'], encoding_format: 'float' })
      .withResponse();
    const log = await logOf(masked.response.headers.get('x-switchyard-log-id') ?? '', owner);
    expect(log.payload.input).toEqual(['[masked]', '[masked]']);
    expect(log.prompt).toBe('[masked]');
    expect(JSON.stringify(log)).not.toMatch(/secret/);

    await request(h.app)
      .put('/v1/apps/update')
      .set(owner.auth)
      .send({ id: owner.app_id, policies: { privacy_level: 3 } })
      .expect(200);
    const refused = apiErrorOf(await ownClient.embeddings.create({ model: 'text-embedding-3-small', input: 'x' }).catch((e: unknown) => e));
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/privacy level 3/);
    const automatic = await ownClient.embeddings.create({ model: 'switchyard', input: 'kept nowhere', encoding_format: 'float' }).withResponse();
    expect(automatic.data.model).toBe('mistral-embed');
    // Mistral refuses `user` (strict validation): it is not sent there.
    await ownClient.embeddings.create({ model: 'mistral-embed', input: 'with a user', user: 'u-1', encoding_format: 'float' });
    await request(h.app)
      .get(`/v1/logs/${automatic.response.headers.get('x-switchyard-log-id')}`)
      .set(owner.auth)
      .expect(404);
  });
});

describe('metrics', () => {
  it("counts the upstream calls and the Space's cost, as for completions", async () => {
    const owner = await h.tenant();
    const ownClient = new OpenAI({ apiKey: owner.api_key, baseURL, maxRetries: 0 });
    const answer = await ownClient.embeddings.create({ model: 'text-embedding-3-small', input: 'counted', encoding_format: 'float' });
    const text = await metrics().registry.metrics();
    expect(text).toMatch(/switchyard_upstream_calls_total\{provider="openai",model="text-embedding-3-small",status="200"\} [1-9]/);
    expect(text).toContain(`switchyard_tokens_total{app_id="${owner.app_id}",kind="prompt"} ${answer.usage.prompt_tokens}`);
    expect(text).toMatch(new RegExp(`switchyard_cost_usd_total\\{app_id="${owner.app_id}"\\} [0-9.e-]+`));
  });
});

describe('upstream failures', () => {
  it('retries the same model on 503 and 429, and logs each call', async () => {
    sim.script('text-embedding-3-large', [
      { kind: 'status', status: 503 },
      { kind: 'status', status: 429, retryAfterSeconds: 0 },
    ]);
    const { data, response } = await client.embeddings.create({ model: 'text-embedding-3-large', input: 'try again', encoding_format: 'float' }).withResponse();
    expect(data.data[0]?.embedding).toHaveLength(3072);
    const log = await logOf(response.headers.get('x-switchyard-log-id') ?? '');
    expect(log.children.map((c) => c.status_code).sort()).toEqual([200, 429, 503]);
    expect(log.total_tokens_cost).toBeCloseTo(data.usage.prompt_tokens * LARGE_PRICE, 12);
  });

  it('answers 502 when the model keeps failing, never switching to another model, and logs the failure', async () => {
    sim.script(
      'text-embedding-3-large',
      [500, 500, 500].map((status) => ({ kind: 'status' as const, status })),
    );
    const before = sim.requests.length;
    const err = apiErrorOf(
      await client.embeddings
        .create({ model: 'text-embedding-3-large', input: 'always failing' })
        .withResponse()
        .catch((e: unknown) => e),
    );
    expect(err.status).toBe(502);
    const calls = sim.requests.slice(before).map((r) => (r.body as { model: string }).model);
    expect(calls).toEqual(['text-embedding-3-large', 'text-embedding-3-large', 'text-embedding-3-large']);
    const log = await logOf(err.headers?.get('x-switchyard-log-id') ?? '');
    expect(log).toMatchObject({ request_type: 'embeddings', status_code: 502, total_tokens_cost: 0 });
  });

  it('answers 504 when the upstream hangs past the timeout', async () => {
    sim.script('text-embedding-3-small', [{ kind: 'hang' }]);
    const err = apiErrorOf(await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hanging' }).catch((e: unknown) => e));
    expect(err.status).toBe(504);
  });
});

describe('rate limit', () => {
  it("takes embeddings from the Space's requests per minute, refusing with 429 past it", async () => {
    const owner = await h.tenant();
    await h.services.db.app.update({ where: { id: owner.app_id }, data: { rate_limit: 1 } });
    await h.services.spaceVersions.bump([owner.app_id]);
    const ownClient = new OpenAI({ apiKey: owner.api_key, baseURL, maxRetries: 0 });
    const { response } = await ownClient.embeddings.create({ model: 'text-embedding-3-small', input: 'first', encoding_format: 'float' }).withResponse();
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const err = apiErrorOf(await ownClient.embeddings.create({ model: 'text-embedding-3-small', input: 'second' }).catch((e: unknown) => e));
    expect(err.status).toBe(429);
    expect(err.code).toBe('rate_limit_exceeded');
  });
});

describe('tenancy', () => {
  it("does not show one organization's embeddings log or custom model to another", async () => {
    const other = await h.tenant();
    const { response } = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'mine only', encoding_format: 'float' }).withResponse();
    await request(h.app)
      .get(`/v1/logs/${response.headers.get('x-switchyard-log-id')}`)
      .set(other.auth)
      .expect(404);

    const name = `own-embedder-${uniqueSuffix()}`;
    const model = await h.services.db.model.create({
      data: {
        model: name,
        provider: 'openai',
        namespace: 'text-embedding-3-small',
        org_id: tenant.org_id,
        is_public: false,
        is_chat: false,
        prompt_token_cost: 1e-8,
      },
    });
    await h.services.db.appModel.create({ data: { app_id: tenant.app_id, model_id: model.id, active: true } });
    await h.services.spaceVersions.bump([tenant.app_id]);
    expect((await client.embeddings.create({ model: name, input: 'custom', encoding_format: 'float' })).model).toBe(name);
    const otherClient = new OpenAI({ apiKey: other.api_key, baseURL, maxRetries: 0 });
    const err = apiErrorOf(await otherClient.embeddings.create({ model: name, input: 'custom' }).catch((e: unknown) => e));
    expect(err.status).toBe(404);
  });

  it('lists the active embedding models in GET /v1/models, after the chat models', async () => {
    const listed = [];
    for await (const model of client.models.list()) listed.push(model.id);
    expect(listed).toEqual(expect.arrayContaining(['text-embedding-3-small', 'text-embedding-3-large']));
    expect(listed.indexOf('text-embedding-3-small')).toBeGreaterThan(listed.indexOf('gpt-4.1-mini'));
    expect(listed).not.toContain('text-embedding-ada-002');
    await expect(client.models.retrieve('text-embedding-3-small')).resolves.toMatchObject({ id: 'text-embedding-3-small', provider: 'openai' });
  });

  it("keeps embedding models out of the chat router's candidates", async () => {
    const space = await h.services.spaceContexts.load(tenant.app_id, `fresh-${uniqueSuffix()}`);
    expect(space?.embeddingModels.map((m) => m.model)).toEqual(expect.arrayContaining(['text-embedding-3-small', 'text-embedding-3-large']));
    expect(space?.models.some((m) => m.model.startsWith('text-embedding'))).toBe(false);
  });
});

describe('Vercel AI SDK', () => {
  it('embeds one value and many through createOpenAI({ baseURL }).embedding(...)', async () => {
    const provider = createOpenAI({ apiKey: tenant.api_key, baseURL });
    const model = provider.embedding('text-embedding-3-small');
    const one = await embed({ model, value: 'sunny day at the beach', maxRetries: 0 });
    expect(one.embedding).toHaveLength(1536);
    expect(one.usage.tokens).toBeGreaterThan(0);
    const many = await embedMany({ model, values: ['sunny day at the beach', 'rainy night in town'], maxRetries: 0 });
    expect(many.embeddings).toHaveLength(2);
    expect(many.embeddings[0]?.map((x) => Math.fround(x))).toEqual(one.embedding.map((x) => Math.fround(x)));
  });
});
