import OpenAI from 'openai';
import type { FunctionTool, ResponseStreamEvent } from 'openai/resources/responses/responses';
import request from 'supertest';
import type { Tenant } from '../helpers/test-context';
import { setModels, simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * `POST /v1/responses` as the official OpenAI SDK's `responses` methods use it, against Switchyard on a
 * real port, upstreams being the provider simulator (which echoes the last user message, and calls the
 * first tool offered when the last turn is the user's).
 */

let sim: Simulator;
let h: CompletionsHarness;
let server: ListeningApp;
let baseURL: string;
let tenant: Tenant;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim) });
  server = await listenOnLoopback(h.app);
  baseURL = `${server.origin}/v1`;
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'gpt-4.1-mini': true, 'claude-haiku-4-5': true, 'gemini-2.5-flash': true });
  client = new OpenAI({ apiKey: tenant.api_key, baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await h.close();
  await sim.close();
});

const WEATHER: FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false },
  strict: true,
};

/** What the simulator was last sent (the upstream request as chat messages). */
function lastUpstreamMessages(): { role: string; content: unknown }[] {
  const body = sim.requests.at(-1)?.body as { messages?: { role: string; content: unknown }[] } | undefined;
  return body?.messages ?? [];
}

/** OpenAI's response object has `store`; the SDK's type leaves it out. */
const storeOf = (response: object) => (response as { store?: boolean }).store;

interface WithSwitchyard {
  switchyard: { model: { model: string }; costs: { total_tokens: number }; scores: { candidates: unknown[] } };
}

describe('responses.create', () => {
  it('answers a text input with a response object, usage and the metadata in `switchyard`', async () => {
    const { data, response } = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Hello there', metadata: { team: 'docs' } }).withResponse();
    expect(data).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-4.1-mini', store: true, metadata: { team: 'docs' }, error: null });
    expect(data.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(data.output_text).toBe('Echo: Hello there');
    expect(data.output).toEqual([
      {
        type: 'message',
        id: expect.stringMatching(/^msg_/),
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Echo: Hello there', annotations: [], logprobs: [] }],
      },
    ]);
    expect(data.usage?.total_tokens).toBe((data.usage?.input_tokens ?? 0) + (data.usage?.output_tokens ?? 0));
    expect(data.usage?.output_tokens).toBeGreaterThan(0);
    const { switchyard } = data as typeof data & WithSwitchyard;
    expect(switchyard.model.model).toBe('gpt-4.1-mini');
    expect(response.headers.get('x-switchyard-log-id')?.replace(/-/g, '')).toBe(data.id.slice('resp_'.length));
  });

  it('chooses the model itself when none is named', async () => {
    const data = await client.responses.create({ input: 'Hello there' });
    const { switchyard } = data as typeof data & WithSwitchyard;
    expect(data.model).toBe(switchyard.model.model);
    expect(switchyard.scores.candidates.length).toBeGreaterThan(1);
  });

  it('sends instructions as the system message and a message list as the conversation', async () => {
    const data = await client.responses.create({
      model: 'claude-haiku-4-5',
      instructions: 'Answer briefly.',
      input: [
        { role: 'user', content: 'First question' },
        { role: 'assistant', content: 'First answer' },
        { role: 'user', content: [{ type: 'input_text', text: 'Second question' }] },
      ],
    });
    expect(data.output_text).toBe('Echo: Second question');
    expect(data.instructions).toBe('Answer briefly.');
    const upstream = sim.requests.at(-1)?.body as { system?: unknown; messages: { role: string }[] };
    expect(JSON.stringify(upstream.system)).toContain('Answer briefly.');
    expect(upstream.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('returns a function_call, then answers once the function_call_output is sent back', async () => {
    const first = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Weather in Oslo?', tools: [WEATHER], store: false });
    expect(storeOf(first)).toBe(false);
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', call_id: expect.any(String), id: expect.stringMatching(/^fc_/) });
    if (call?.type !== 'function_call') throw new Error('no function call');
    expect(JSON.parse(call.arguments)).toEqual({ query: 'Weather in Oslo?' });
    const second = await client.responses.create({
      model: 'gpt-4.1-mini',
      tools: [WEATHER],
      input: [
        { role: 'user', content: 'Weather in Oslo?' },
        { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 21 °C' },
      ],
    });
    expect(second.output_text).toBe('Tool said: Sunny, 21 °C');
    expect(lastUpstreamMessages().map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('maps max_output_tokens, temperature and a json_schema text format', async () => {
    const data = await client.responses.create({
      model: 'gpt-4.1-mini',
      input: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen',
      max_output_tokens: 16,
      temperature: 0.2,
    });
    expect(data).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 16, temperature: 0.2 });
    const upstream = sim.requests.at(-1)?.body as Record<string, unknown>;
    expect(upstream).toMatchObject({ temperature: 0.2 });
    const json = await client.responses.create({
      model: 'gpt-4.1-mini',
      input: 'Say hi',
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { answer: { type: 'string' } } } } },
    });
    expect(JSON.parse(json.output_text)).toEqual({ answer: 'Echo: Say hi' });
  });
});

describe('streaming', () => {
  it('streams typed events from response.created to response.completed, in sequence', async () => {
    const stream = await client.responses.create({ model: 'gemini-2.5-flash', input: 'Tell me something nice', stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = [...new Set(events.map((e) => e.type))];
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const text = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    expect(text).toBe('Echo: Tell me something nice');
    const completed = events.at(-1);
    if (completed?.type !== 'response.completed') throw new Error('no response.completed');
    expect(completed.response.output_text ?? completed.response.output[0]).toBeTruthy();
    expect(completed.response.usage?.output_tokens).toBeGreaterThan(0);
    expect((completed.response as typeof completed.response & WithSwitchyard).switchyard.model.model).toBe('gemini-2.5-flash');
  });

  it('streams a function call that the stream helper assembles', async () => {
    const stream = client.responses.stream({ model: 'gpt-4.1-mini', input: 'Weather in Rome?', tools: [WEATHER] });
    const argumentsDone: string[] = [];
    stream.on('response.function_call_arguments.done', (event) => argumentsDone.push(event.arguments));
    const final = await stream.finalResponse();
    const call = final.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'get_weather', status: 'completed' });
    if (call?.type !== 'function_call') throw new Error('no function call');
    expect(argumentsDone).toEqual([call.arguments]);
    expect(JSON.parse(call.arguments)).toEqual({ query: 'Weather in Rome?' });
  });

  it('ends a stream that breaks after it started with response.failed, keeping the text already sent', async () => {
    sim.script('gpt-4.1-mini', [{ kind: 'cut', afterChunks: 2 }]);
    const stream = await client.responses.create({ model: 'gpt-4.1-mini', input: 'one two three four five six', stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const last = events.at(-1);
    if (last?.type !== 'response.failed') throw new Error(`ended with ${last?.type}`);
    expect(last.response).toMatchObject({ status: 'failed', error: { code: expect.any(String), message: expect.any(String) } });
    const sent = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    expect(sent.length).toBeGreaterThan(0);
    expect(last.response.output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: sent })] })]);
    expect(events[0]?.type).toBe('response.created');
  });

  it('answers an error before the stream started with its status and JSON body', async () => {
    await expect(client.responses.create({ model: 'no-such-model', input: 'Hi', stream: true })).rejects.toMatchObject({ status: 404, param: 'model' });
  });
});

describe('stored responses', () => {
  it('continues a stored response with previous_response_id: the earlier turn is replayed upstream', async () => {
    const first = await client.responses.create({ model: 'gpt-4.1-mini', input: 'My name is Ada', instructions: 'Be kind.' });
    const second = await client.responses.create({ model: 'gpt-4.1-mini', input: 'What is my name?', previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text).toBe('Echo: What is my name?');
    // Instructions are not carried over (as OpenAI's): the first turn's system message is not replayed.
    expect(lastUpstreamMessages()).toEqual([
      { role: 'user', content: 'My name is Ada' },
      { role: 'assistant', content: 'Echo: My name is Ada' },
      { role: 'user', content: 'What is my name?' },
    ]);
    const third = await client.responses.create({ model: 'gpt-4.1-mini', input: 'And again?', previous_response_id: second.id, stream: true });
    for await (const event of third) void event;
    expect(lastUpstreamMessages().map((m) => m.content)).toEqual([
      'My name is Ada',
      'Echo: My name is Ada',
      'What is my name?',
      'Echo: What is my name?',
      'And again?',
    ]);
  });

  it('refuses to continue a response twice, naming previous_response_id', async () => {
    const first = await client.responses.create({ model: 'gpt-4.1-mini', input: 'One' });
    await client.responses.create({ model: 'gpt-4.1-mini', input: 'Two', previous_response_id: first.id });
    await expect(client.responses.create({ model: 'gpt-4.1-mini', input: 'Two again', previous_response_id: first.id })).rejects.toMatchObject({
      status: 400,
      param: 'previous_response_id',
    });
  });

  it('retrieves and deletes a stored response', async () => {
    const created = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Keep me' });
    const retrieved = await client.responses.retrieve(created.id);
    expect(retrieved).toMatchObject({ id: created.id, status: 'completed', output_text: 'Echo: Keep me' });
    // The SDK types the answer as void; the body is OpenAI's deletion object.
    await expect(client.responses.delete(created.id)).resolves.toEqual({ id: created.id, object: 'response', deleted: true });
    await expect(client.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.delete(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.create({ model: 'gpt-4.1-mini', input: 'More', previous_response_id: created.id })).rejects.toMatchObject({
      status: 404,
      param: 'previous_response_id',
    });
  });

  it('answers 404 for a response whose conversation was deleted', async () => {
    const created = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Chain' });
    const conversations = await request(h.app).get(`/v1/apps/${tenant.app_id}/conversations`).set(tenant.auth).expect(200);
    const { data } = conversations.body as { data: { id: string; name: string }[] };
    expect(data[0]?.name).toBe('responses');
    await request(h.app).delete(`/v1/apps/${tenant.app_id}/conversations/${data[0]?.id}`).set(tenant.auth).expect(200);
    await expect(client.responses.create({ model: 'gpt-4.1-mini', input: 'More', previous_response_id: created.id })).rejects.toMatchObject({
      status: 404,
      param: 'previous_response_id',
    });
  });

  it('leaves no conversation behind a stored first response that failed', async () => {
    const listed = async () =>
      ((await request(h.app).get(`/v1/apps/${tenant.app_id}/conversations?limit=100`).set(tenant.auth).expect(200)).body as { data: unknown[] }).data.length;
    const before = await listed();
    await expect(client.responses.create({ model: 'no-such-model', input: 'Hi' })).rejects.toMatchObject({ status: 404 });
    // The conversation goes as the error is answered, not before: allow it a moment.
    for (let i = 0; i < 20 && (await listed()) !== before; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await listed()).toBe(before);
  });

  it('keeps nothing with store: false', async () => {
    const created = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Forget me', store: false });
    await expect(client.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.create({ model: 'gpt-4.1-mini', input: 'More', previous_response_id: created.id })).rejects.toMatchObject({ status: 404 });
  });

  it('answers 404 to another organization, for reading, deleting and continuing', async () => {
    const created = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Mine' });
    const stranger = await h.tenant();
    await setModels(h.app, stranger, { 'gpt-4.1-mini': true });
    const other = new OpenAI({ apiKey: stranger.api_key, baseURL, maxRetries: 0 });
    await expect(other.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.delete(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.create({ model: 'gpt-4.1-mini', input: 'Yours?', previous_response_id: created.id })).rejects.toMatchObject({
      status: 404,
      param: 'previous_response_id',
    });
    await expect(client.responses.retrieve(created.id)).resolves.toMatchObject({ id: created.id });
  });

  it('at privacy level 2 keeps no content: store defaults to false, store: true is refused naming it', async () => {
    const strict = await h.tenant();
    await setModels(h.app, strict, { 'gpt-4.1-mini': true });
    await request(h.app)
      .put('/v1/apps/update')
      .set(strict.auth)
      .send({ id: strict.app_id, policies: { privacy_level: 2 } })
      .expect(200);
    const strictClient = new OpenAI({ apiKey: strict.api_key, baseURL, maxRetries: 0 });
    const created = await strictClient.responses.create({ model: 'gpt-4.1-mini', input: 'Secret' });
    expect(storeOf(created)).toBe(false);
    expect(created.output_text).toBe('Echo: Secret');
    await expect(strictClient.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(strictClient.responses.create({ model: 'gpt-4.1-mini', input: 'Secret', store: true })).rejects.toMatchObject({ status: 400, param: 'store' });
  });

  it('drops a response stored at level 1 once its Space is raised to level 2', async () => {
    const space = await h.tenant();
    await setModels(h.app, space, { 'gpt-4.1-mini': true });
    const spaceClient = new OpenAI({ apiKey: space.api_key, baseURL, maxRetries: 0 });
    const created = await spaceClient.responses.create({ model: 'gpt-4.1-mini', input: 'Before the rise' });
    await expect(spaceClient.responses.retrieve(created.id)).resolves.toMatchObject({ id: created.id });
    await request(h.app)
      .put('/v1/apps/update')
      .set(space.auth)
      .send({ id: space.app_id, policies: { privacy_level: 2 } })
      .expect(200);
    await expect(spaceClient.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(spaceClient.responses.create({ model: 'gpt-4.1-mini', input: 'After', previous_response_id: created.id })).rejects.toMatchObject({
      status: 404,
    });
    await request(h.app)
      .put('/v1/apps/update')
      .set(space.auth)
      .send({ id: space.app_id, policies: { privacy_level: 1 } })
      .expect(200);
    await expect(spaceClient.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe('bad input', () => {
  it('refuses Idempotency-Key, which only chat completions honour, naming it', async () => {
    const call = client.responses.create({ model: 'gpt-4.1-mini', input: 'Hi' }, { headers: { 'Idempotency-Key': 'once' } });
    await expect(call).rejects.toMatchObject({ status: 400, param: 'Idempotency-Key' });
  });

  it.each([
    ['a missing input', { model: 'gpt-4.1-mini' }, 'input'],
    ['an unknown field', { model: 'gpt-4.1-mini', input: 'Hi', frobnicate: true }, 'frobnicate'],
    ['a built-in tool', { model: 'gpt-4.1-mini', input: 'Hi', tools: [{ type: 'web_search_preview' }] }, 'tools[0].type'],
    ['background mode', { model: 'gpt-4.1-mini', input: 'Hi', background: true }, 'background'],
    ['a bad temperature', { model: 'gpt-4.1-mini', input: 'Hi', temperature: 3 }, 'temperature'],
    ['a bad item', { model: 'gpt-4.1-mini', input: [{ type: 'function_call_output', output: 'x' }] }, 'input[0].call_id'],
    ['an unknown item reference', { model: 'gpt-4.1-mini', input: [{ type: 'item_reference', id: 'msg_0123456789abcdef0123456789abcdef' }] }, 'input[0].id'],
  ])('refuses %s with 400 (404 for a reference) naming the field', async (_name, body, param) => {
    const call = client.post('/responses', { body });
    await expect(call).rejects.toMatchObject({ param });
    await expect(call).rejects.toHaveProperty('status', param === 'input[0].id' ? 404 : 400);
  });
});
