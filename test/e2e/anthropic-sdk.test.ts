import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, RawMessageStreamEvent, Tool } from '@anthropic-ai/sdk/resources/messages';
import request from 'supertest';
import { createOrgKey } from '../../src/services/tenancy/key-admin';
import type { Tenant } from '../helpers/test-context';
import { setModels, simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { eventually, isolatedSpace } from '../helpers/completion-fixtures';
import { uniqueSuffix } from '../helpers/test-database';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * The official Anthropic SDK, unchanged (its own fetch), against Switchyard on a real port: what a
 * client written for Anthropic gets from `POST /v1/messages`, upstreams being the provider simulator.
 */

let sim: Simulator;
let h: CompletionsHarness;
let server: ListeningApp;
let baseURL: string;
let tenant: Tenant;
let client: Anthropic;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim) });
  server = await listenOnLoopback(h.app);
  baseURL = `${server.origin}`;
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'gpt-4.1-mini': true, 'claude-haiku-4-5': true, 'gemini-2.5-flash': true });
  client = new Anthropic({ apiKey: tenant.api_key, baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await h.close();
  await sim.close();
});

/** One model per upstream dialect: OpenAI, Anthropic, Gemini. */
const MODELS = ['gpt-4.1-mini', 'claude-haiku-4-5', 'gemini-2.5-flash'];

const TOOLS: Tool[] = [
  {
    name: 'get_weather',
    description: 'Current weather of a city',
    input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
];

/** A 1x1 transparent PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

type WithMetadata<T> = T & { metadata: { model: { model: string }; costs: { total_tokens: number }; cost_savings: unknown; status_code: number } };

describe('messages.create', () => {
  it.each(MODELS)('answers a text message (%s)', async (model) => {
    const message = await client.messages.create({ model, max_tokens: 256, messages: [{ role: 'user', content: 'Hello there' }] });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model, stop_reason: 'end_turn', stop_sequence: null });
    expect(message.id).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: Hello there' }]);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it("takes system, multi-turn and automatic choice; Switchyard's metadata is an extra field", async () => {
    const { data, response } = await client.messages
      .create({
        model: 'switchyard',
        max_tokens: 256,
        system: [{ type: 'text', text: 'You are terse.' }],
        messages: [
          { role: 'user', content: 'First question' },
          { role: 'assistant', content: [{ type: 'text', text: 'First answer' }] },
          { role: 'user', content: [{ type: 'text', text: 'Second question' }] },
        ],
        metadata: { user_id: 'user-1' },
        // Fields this SDK version no longer types, which Anthropic (and Switchyard) still take.
        ...{ temperature: 0.2, top_p: 0.9, top_k: 5 },
      })
      .withResponse();
    expect(data.content).toEqual([{ type: 'text', text: 'Echo: Second question' }]);
    const { metadata } = data as WithMetadata<typeof data>;
    expect(metadata.model.model).toBe(data.model);
    expect(metadata.costs.total_tokens).toBeGreaterThan(0);
    expect(metadata.cost_savings).toBeDefined();
    expect(data.id).toBe(`msg_${response.headers.get('x-switchyard-log-id') ?? ''}`);
    expect(response.headers.get('request-id')).toBe(response.headers.get('x-switchyard-log-id'));
  });

  it('passes a Claude model the system prompt and the turns as the client sent them', async () => {
    const before = sim.requests.length;
    await client.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 100,
      system: 'Be brief.',
      stop_sequences: ['STOP'],
      messages: [
        { role: 'user', content: 'One' },
        { role: 'assistant', content: 'Two' },
        { role: 'user', content: 'Three' },
      ],
    });
    const call = sim.requests.slice(before).find((recorded) => recorded.dialect === '/anthropic');
    expect(call?.body).toMatchObject({
      max_tokens: 100,
      system: 'Be brief.',
      stop_sequences: ['STOP'],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'One' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Two' }] },
        { role: 'user', content: [{ type: 'text', text: 'Three' }] },
      ],
    });
  });

  it.each(['gpt-4.1-mini', 'claude-haiku-4-5'])('takes an image block (%s)', async (model) => {
    const message = await client.messages.create({
      model,
      max_tokens: 256,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: What is this?' }]);
  });

  it.each(MODELS)('returns tool_use, then answers once the tool_result is sent back (%s)', async (model) => {
    const messages: MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.messages.create({ model, max_tokens: 256, messages, tools: TOOLS, tool_choice: { type: 'auto' } });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use');
    expect(use).toEqual({ type: 'tool_use', id: expect.any(String), name: 'get_weather', input: { query: 'Weather in Paris?' } });
    if (use?.type !== 'tool_use') throw new Error('expected a tool_use block');
    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 21 °C' }] },
    );
    const second = await client.messages.create({ model, max_tokens: 256, messages, tools: TOOLS });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content).toEqual([{ type: 'text', text: 'Tool said: Sunny, 21 °C' }]);
  });

  it('counts tokens', async () => {
    const counted = await client.messages.countTokens({
      model: 'claude-haiku-4-5',
      messages: [{ role: 'user', content: 'Hello there, how are you?' }],
      tools: TOOLS,
    });
    expect(counted.input_tokens).toBeGreaterThan(10);
  });
});

describe('messages.stream', () => {
  it.each(MODELS)("streams Anthropic's event sequence, text events and the final message (%s)", async (model) => {
    const stream = client.messages.stream({ model, max_tokens: 256, messages: [{ role: 'user', content: 'Tell me something nice' }] });
    const texts: string[] = [];
    const events: RawMessageStreamEvent[] = [];
    stream.on('text', (text) => texts.push(text));
    stream.on('streamEvent', (event) => events.push(event));
    const final = await stream.finalMessage();
    expect(texts.join('')).toBe('Echo: Tell me something nice');
    expect(final).toMatchObject({ role: 'assistant', model, stop_reason: 'end_turn', content: [{ type: 'text', text: 'Echo: Tell me something nice' }] });
    expect(final.usage.input_tokens).toBeGreaterThan(0);
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('message_start');
    expect(types.slice(1, 2)).toEqual(['content_block_start']);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(new Set(types.slice(2, -3))).toEqual(new Set(['content_block_delta']));
    const delta = events.find((event) => event.type === 'message_delta') as WithMetadata<RawMessageStreamEvent>;
    expect(delta.metadata.model.model).toBe(model);
    expect(delta.metadata.status_code).toBe(200);
  });

  it('sends ping after message_start and names every event after its type on the wire', async () => {
    const res = await request(h.app)
      .post('/v1/messages')
      .set('x-api-key', tenant.api_key)
      .set('anthropic-version', '2023-06-01')
      .send({ model: 'gpt-4.1-mini', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const frames = res.text.split('\n\n').filter((frame) => frame.startsWith('event:'));
    const names = frames.map((frame) => /^event: (\w+)/.exec(frame)?.[1]);
    expect(names.slice(0, 3)).toEqual(['message_start', 'ping', 'content_block_start']);
    for (const frame of frames) expect(JSON.parse(frame.split('\ndata: ')[1] ?? '')).toMatchObject({ type: /^event: (\w+)/.exec(frame)?.[1] });
    expect(res.text).not.toContain('[DONE]');
  });

  it.each(['gpt-4.1-mini', 'claude-haiku-4-5'])('streams a tool_use block with input_json_delta (%s)', async (model) => {
    const stream = client.messages.stream({ model, max_tokens: 256, messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: TOOLS });
    const partials: string[] = [];
    stream.on('inputJson', (partial) => partials.push(partial));
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toEqual([{ type: 'tool_use', id: expect.any(String), name: 'get_weather', input: { query: 'Weather in Oslo?' } }]);
    expect(partials.join('')).toBe(JSON.stringify({ query: 'Weather in Oslo?' }));
  });

  it('ends with an APIError from an `event: error` when the provider fails after the stream started', async () => {
    const owner = await h.tenant();
    const name = `breaks-${uniqueSuffix()}`;
    const model = await h.services.db.model.create({
      data: {
        model: name,
        provider: 'openai',
        namespace: 'sim-stream-error',
        org_id: owner.org_id,
        is_public: false,
        context_window: 128_000,
        quality_profile: { overall: 0.5, categories: {} },
      },
    });
    await h.services.db.appModel.create({ data: { app_id: owner.app_id, model_id: model.id, active: true } });
    const ownClient = new Anthropic({ apiKey: owner.api_key, baseURL, maxRetries: 0 });
    const stream = ownClient.messages.stream({ model: name, max_tokens: 100, messages: [{ role: 'user', content: 'Hello there' }] });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));
    const error = await stream.finalMessage().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: expect.any(String), message: expect.stringMatching(/broke off the stream/) },
    });
    expect(texts.join('')).not.toBe('');
  });
});

describe('errors, in Anthropic’s shape', () => {
  it('a missing max_tokens is a BadRequestError naming it', async () => {
    const error = await client.messages
      .create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Hi' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const apiError = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect(apiError.status).toBe(400);
    expect(apiError.error).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: "Missing required field 'max_tokens'." } });
  });

  it('a block a role cannot send is a 400 naming it; so is a stream with a bad temperature, before streaming', async () => {
    const misplaced = await client.messages
      .create({ model: 'gpt-4.1-mini', max_tokens: 10, messages: [{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'y' }] }] })
      .catch((err: unknown) => err);
    expect(misplaced).toBeInstanceOf(Anthropic.BadRequestError);
    expect((misplaced as InstanceType<typeof Anthropic.BadRequestError>).message).toMatch(/cannot hold a 'tool_result' block/);
    const hot = await client.messages
      .create({ model: 'gpt-4.1-mini', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }], ...{ temperature: 1.5 } })
      .catch((err: unknown) => err);
    expect(hot).toBeInstanceOf(Anthropic.BadRequestError);
    expect((hot as InstanceType<typeof Anthropic.BadRequestError>).message).toMatch(/'temperature'/);
  });

  it('an unknown model is a NotFoundError; a model not active in the Space a BadRequestError', async () => {
    const unknown = await client.messages
      .create({ model: 'claude-no-such-model', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((err: unknown) => err);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect((unknown as InstanceType<typeof Anthropic.NotFoundError>).error).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: "Model 'claude-no-such-model' does not exist." },
    });
    const inactive = await client.messages
      .create({ model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((err: unknown) => err);
    expect(inactive).toBeInstanceOf(Anthropic.BadRequestError);
  });

  it('a wrong key is an AuthenticationError', async () => {
    const stranger = new Anthropic({ apiKey: 'sk-not-a-switchyard-key', baseURL, maxRetries: 0 });
    const error = await stranger.messages
      .create({ model: 'gpt-4.1-mini', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).error).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'Invalid API key.' },
    });
  });

  it("the Space's rate limit is a RateLimitError carrying Retry-After", async () => {
    const created = await request(h.app)
      .post('/v1/apps')
      .set(tenant.auth)
      .send({ name: `limited ${uniqueSuffix()}`, rate_limit: 1 });
    expect(created.status).toBe(201);
    const key = await createOrgKey(h.services.db, { orgId: tenant.org_id, appId: created.body.app.id, role: 'member' });
    const limited = new Anthropic({ apiKey: key.api_key, baseURL, maxRetries: 0 });
    await limited.messages.create({ model: 'switchyard', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    const error = await limited.messages
      .create({ model: 'switchyard', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const rateError = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(rateError.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(Number(rateError.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('an upstream that keeps failing is an InternalServerError in Anthropic’s shape', async () => {
    const { tenant: failing, models } = await isolatedSpace(h, {
      models: [{ name: `down-${uniqueSuffix()}`, namespace: 'sim-500' }],
      update: { policies: { max_same_model_retries: 0 } },
    });
    const [model] = Object.values(models);
    const own = new Anthropic({ apiKey: failing.api_key, baseURL, maxRetries: 0 });
    const error = await own.messages
      .create({ model: model?.model ?? '', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    const apiError = error as InstanceType<typeof Anthropic.InternalServerError>;
    expect(apiError.status).toBeGreaterThanOrEqual(500);
    expect(apiError.error).toEqual({ type: 'error', error: { type: expect.stringMatching(/^(api_error|overloaded_error)$/), message: expect.any(String) } });
  });

  it('anthropic-version missing is a 400, as Anthropic answers; another method is a 405, in the same shape', async () => {
    const missing = await request(h.app)
      .post('/v1/messages')
      .set('x-api-key', tenant.api_key)
      .send({ model: 'gpt-4.1-mini', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });
    const wrongMethod = await request(h.app).get('/v1/messages').set('x-api-key', tenant.api_key);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const badJson = await request(h.app).post('/v1/messages').set('x-api-key', tenant.api_key).set('content-type', 'application/json').send('{"model":');
    expect(badJson.body).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'The request body is not valid JSON.' } });
    // Other routes keep OpenAI's shape.
    expect((await request(h.app).get('/v1/chat/completions').set(tenant.auth)).body.error.code).toBe('method_not_allowed');
  });
});

describe('OpenAPI', () => {
  it("documents the routes with Anthropic's error shape", async () => {
    const doc = await request(h.app).get('/v1/openapi.json').expect(200);
    const post = doc.body.paths['/v1/messages'].post;
    expect(post.operationId).toBe('createMessage');
    expect(JSON.stringify(post.responses['401'])).toContain('AnthropicError');
    expect(doc.body.components.schemas.AnthropicError).toBeDefined();
    expect(doc.body.paths['/v1/messages/count_tokens'].post.operationId).toBe('countMessageTokens');
    expect(JSON.stringify(doc.body.paths['/v1/chat/completions'].post.responses['401'])).not.toContain('AnthropicError');
  });
});

describe('keys and isolation', () => {
  it('takes the key in x-api-key on any route, and refuses two headers naming different keys', async () => {
    const models = await request(h.app).get('/v1/models').set('x-api-key', tenant.api_key);
    expect(models.status).toBe(200);
    const both = await request(h.app).get('/v1/models').set('x-api-key', tenant.api_key).set('Authorization', 'Bearer sy-someone-else');
    expect(both.status).toBe(400);
    expect(both.body.error.param).toBe('x-api-key');
    expect(JSON.stringify(both.body)).not.toContain(tenant.api_key);
    const same = await request(h.app).get('/v1/models').set('x-api-key', tenant.api_key).set('Authorization', `Bearer ${tenant.api_key}`);
    expect(same.status).toBe(200);
  });

  it("another organization's private model is not found, exactly like an unknown one", async () => {
    const { tenant: other, models } = await isolatedSpace(h, { models: [{ name: `private-${uniqueSuffix()}` }] });
    const [privateModel] = Object.values(models);
    const own = new Anthropic({ apiKey: other.api_key, baseURL, maxRetries: 0 });
    await expect(own.messages.create({ model: privateModel?.model ?? '', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })).resolves.toMatchObject(
      { type: 'message' },
    );
    const error = await client.messages
      .create({ model: privateModel?.model ?? '', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as InstanceType<typeof Anthropic.NotFoundError>).message).toContain('does not exist');
  });
});

describe('privacy level 3', () => {
  it('streams the answer and keeps nothing of it', async () => {
    const { tenant: private3 } = await isolatedSpace(h, { models: [{ name: 'answering', gdpr: true }], update: { policies: { privacy_level: 3 } } });
    const secret = `My account number is ${uniqueSuffix()}-${uniqueSuffix()}`;
    const own = new Anthropic({ apiKey: private3.api_key, baseURL, maxRetries: 0 });
    const stream = own.messages.stream({ model: 'switchyard', max_tokens: 256, messages: [{ role: 'user', content: secret }] });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: `Echo: ${secret}` }]);
    const requestId = final.id.replace(/^msg_/, '');
    const queue = h.services.queues.completions;
    await eventually(async () => ((await queue.getJob(requestId)) ? null : true));
    expect(await h.services.db.log.count({ where: { app_id: private3.app_id } })).toBe(0);
  });
});
