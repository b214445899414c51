import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import request from 'supertest';
import { createOrgKey } from '../../src/services/tenancy/key-admin';
import type { Tenant } from '../helpers/test-context';
import { setModels, simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { uniqueSuffix } from '../helpers/test-database';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * The official OpenAI SDK, unchanged (its own fetch, no patches), against Switchyard on a real port:
 * what a client written for OpenAI gets from Switchyard, upstreams being the provider simulator.
 */

let sim: Simulator;
let h: CompletionsHarness;
let server: Server;
let baseURL: string;
let tenant: Tenant;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({
    providers: simulatedProviders(sim),
  });
  server = await new Promise<Server>((resolve) => {
    const listening = h.app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'gpt-4.1-mini': true, 'claude-haiku-4-5': true, 'gemini-2.5-flash': true });
  client = new OpenAI({ apiKey: tenant.api_key, baseURL });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
  await sim.close();
});

const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather of a city',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
];

/** One model per upstream dialect: OpenAI, Anthropic, Gemini. */
const MODELS = ['gpt-4.1-mini', 'claude-haiku-4-5', 'gemini-2.5-flash'];

describe('chat.completions.create', () => {
  it.each(MODELS)('answers a plain completion (%s)', async (model) => {
    const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello there' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(model);
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Echo: Hello there' } });
    expect(completion.usage?.total_tokens).toBe((completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0));
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('chooses the model itself when asked for the service name, and the response carries the metadata', async () => {
    const completion = await client.chat.completions.create({ model: 'switchyard', messages: [{ role: 'user', content: 'Hello there' }] });
    const { metadata } = completion as typeof completion & { metadata: { model: { model: string }; scores: { candidates: unknown[] } } };
    expect(metadata.model.model).toBe(completion.model);
    expect(metadata.scores.candidates.length).toBeGreaterThan(1);
  });

  it('gives the raw response with our headers', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Hello there' }] })
      .withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toEqual(expect.any(String));
    expect(data.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('streaming', () => {
  it.each(MODELS)('streams chunks whose text is the answer, each with a choice, the last one carrying usage and metadata (%s)', async (model) => {
    const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Tell me something nice' }], stream: true });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    // At least the first delta and the closing chunk: text deltas that reach the worker within its few
    // milliseconds of gathering travel as one (test/unit/reply-publisher.test.ts), as this fast upstream's do.
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    for (const chunk of chunks) expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model, id: chunks[0].id });
    // As OpenAI's, the first delta names the role, and only the first.
    expect(chunks.map((c) => c.choices[0]?.delta.role).filter(Boolean)).toEqual(['assistant']);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Echo: Tell me something nice');
    expect(chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['stop']);
    // The loop everyone writes, `chunk.choices[0].delta.content`, never meets a chunk without a choice.
    for (const chunk of chunks) expect(chunk.choices.length).toBeGreaterThan(0);
    const last = chunks.at(-1) as ChatCompletionChunk & { metadata?: { model: { model: string } } };
    expect(last.choices[0]?.finish_reason).toBe('stop');
    expect(last.metadata?.model.model).toBe(model);
    expect(chunks.filter((c) => c.usage)).toEqual([last]);
    expect(last?.usage?.completion_tokens).toBeGreaterThan(0);
    expect(last?.usage?.total_tokens).toBe((last?.usage?.prompt_tokens ?? 0) + (last?.usage?.completion_tokens ?? 0));
  });

  it("honours stream_options.include_usage: OpenAI's last chunk with empty choices, the only one with usage", async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'Hello there' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Echo: Hello there');
    const withUsage = chunks.filter((c) => c.usage);
    expect(withUsage).toHaveLength(1);
    expect(withUsage[0]).toBe(chunks.at(-1));
    expect(withUsage[0].choices).toEqual([]);
    expect(withUsage[0].usage?.prompt_tokens).toBeGreaterThan(0);
    const closing = chunks.at(-2) as ChatCompletionChunk & { metadata?: unknown };
    expect(closing.choices[0]?.finish_reason).toBe('stop');
    expect(closing.metadata).toEqual(expect.objectContaining({ status_code: 200 }));
  });

  it.each(MODELS)('works with the chat.completions.stream helper (%s)', async (model) => {
    const stream = client.chat.completions.stream({ model, messages: [{ role: 'user', content: 'Hello there' }] });
    const deltas: string[] = [];
    stream.on('content.delta', ({ delta }) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    expect(deltas.join('')).toBe('Echo: Hello there');
    expect(final.choices[0].message).toMatchObject({ role: 'assistant', content: 'Echo: Hello there' });
    expect(final.choices[0].finish_reason).toBe('stop');
  });

  it('ends with an APIError when the provider fails after the stream started', async () => {
    // A Space of its own, configured before its first completion (the worker caches a Space's models).
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
    const ownClient = new OpenAI({ apiKey: owner.api_key, baseURL });
    const stream = await ownClient.chat.completions.create({ model: name, messages: [{ role: 'user', content: 'Hello there' }], stream: true });
    const texts: string[] = [];
    const consume = async () => {
      for await (const chunk of stream) texts.push(chunk.choices[0]?.delta.content ?? '');
    };
    const error = await consume().then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toMatch(/broke off the stream/);
    expect(texts.join('')).not.toBe('');
  });
});

describe('tool calls', () => {
  it('returns tool_calls, then answers once the tool result is sent back', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages, tools: TOOLS });
    const choice = first.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls?.[0];
    expect(call).toEqual({
      id: expect.any(String),
      type: 'function',
      function: { name: 'get_weather', arguments: JSON.stringify({ query: 'Weather in Paris?' }) },
    });
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'Weather in Paris?' });

    messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: 'Sunny, 21 °C' });
    const second = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages, tools: TOOLS });
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(second.choices[0].message.content).toBe('Tool said: Sunny, 21 °C');
  });

  it.each(['gpt-4.1-mini', 'claude-haiku-4-5'])('streams tool calls that the stream helper assembles (%s)', async (model) => {
    const stream = client.chat.completions.stream({ model, messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: TOOLS });
    const done: string[] = [];
    stream.on('tool_calls.function.arguments.done', ({ name, arguments: args }) => done.push(`${name} ${args}`));
    const final = await stream.finalChatCompletion();
    const call = final.choices[0].message.tool_calls?.[0];
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' && call.function).toEqual({ name: 'get_weather', arguments: JSON.stringify({ query: 'Weather in Oslo?' }) });
    expect(done).toEqual([`get_weather ${JSON.stringify({ query: 'Weather in Oslo?' })}`]);
  });

  it('streams tool calls that a client can assemble from the raw chunks', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'Weather in Rome?' }],
      tools: TOOLS,
      stream: true,
    });
    const calls = new Map<number, { id?: string; name: string; arguments: string }>();
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        finish = choice.finish_reason ?? finish;
        for (const delta of choice.delta.tool_calls ?? []) {
          const call = calls.get(delta.index) ?? { name: '', arguments: '' };
          call.id ??= delta.id;
          call.name += delta.function?.name ?? '';
          call.arguments += delta.function?.arguments ?? '';
          calls.set(delta.index, call);
        }
      }
    }
    expect(finish).toBe('tool_calls');
    expect([...calls.values()]).toEqual([{ id: expect.any(String), name: 'get_weather', arguments: JSON.stringify({ query: 'Weather in Rome?' }) }]);
  });
});

describe('errors', () => {
  it('an unknown model is a NotFoundError with our status, message, code and param', async () => {
    const error = await client.chat.completions
      .create({ model: 'no-such-model', messages: [{ role: 'user', content: 'Hello there' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const apiError = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect(apiError.status).toBe(404);
    expect(apiError.message).toBe("404 Model 'no-such-model' does not exist.");
    expect(apiError).toMatchObject({ code: 'not_found', param: 'model', type: 'not_found_error' });
    expect(apiError.requestID).toEqual(expect.any(String));
  });

  it('a model not active in the Space is a BadRequestError', async () => {
    const error = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello there' }] }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'model_not_available', message: "400 Model 'gpt-4o' is not active in this Space." });
  });

  it('an invalid request is a BadRequestError before anything streams', async () => {
    const error = await client.chat.completions
      .create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Hello there' }], temperature: 5, stream: true })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('temperature');
  });

  it('a wrong key is an AuthenticationError', async () => {
    const stranger = new OpenAI({ apiKey: 'sk-not-a-switchyard-key', baseURL });
    const error = await stranger.chat.completions
      .create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Hello there' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: 'authentication_error' });
  });

  it("the Space's rate limit is a RateLimitError carrying Retry-After", async () => {
    const created = await request(h.app)
      .post('/v1/apps')
      .set(tenant.auth)
      .send({ name: `limited ${uniqueSuffix()}`, rate_limit: 1 });
    expect(created.status).toBe(201);
    const key = await createOrgKey(h.services.db, { orgId: tenant.org_id, appId: created.body.app.id, role: 'member' });
    // maxRetries 0: left alone, the SDK would wait out Retry-After and try again, as it should.
    const limited = new OpenAI({ apiKey: key.api_key, baseURL, maxRetries: 0 });
    await limited.chat.completions.create({ messages: [{ role: 'user', content: 'Hello there' }], model: 'switchyard' });
    const error = await limited.chat.completions
      .create({ messages: [{ role: 'user', content: 'Hello there' }], model: 'switchyard' })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rateError = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateError.status).toBe(429);
    expect(Number(rateError.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(rateError.headers.get('x-ratelimit-limit-requests')).toBe('1');
  });
});

describe('models.list and models.retrieve', () => {
  it("lists the automatic model first, then the Space's active models, each usable as `model`", async () => {
    const listed = [];
    for await (const model of client.models.list()) listed.push(model);
    expect(listed[0]).toMatchObject({ id: 'switchyard', object: 'model', owned_by: 'switchyard', automatic: true });
    expect(listed[0]?.created).toBeGreaterThan(1_700_000_000);
    const ids = listed.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(MODELS));
    const mini = listed.find((model) => model.id === 'gpt-4.1-mini') as unknown as Record<string, unknown>;
    expect(mini).toMatchObject({ object: 'model', provider: 'openai', automatic: false, capabilities: expect.objectContaining({ stream: true }) });
    expect(mini.created).toEqual(expect.any(Number));
    const completion = await client.chat.completions.create({ model: ids[1] ?? '', messages: [{ role: 'user', content: 'Hello there' }] });
    expect(completion.model).toBe(ids[1]);
  });

  it('retrieves one by its name, and answers 404 for a model the Space does not offer', async () => {
    await expect(client.models.retrieve('gpt-4.1-mini')).resolves.toMatchObject({ id: 'gpt-4.1-mini', object: 'model' });
    const error = await client.models.retrieve('not-a-model').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('answers 400 naming Authorization for a key bound to no Space', async () => {
    const key = await createOrgKey(h.services.db, { orgId: tenant.org_id, role: 'owner' });
    const orgClient = new OpenAI({ apiKey: key.api_key, baseURL, maxRetries: 0 });
    const error = await orgClient.models.list().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('Authorization');
  });
});
