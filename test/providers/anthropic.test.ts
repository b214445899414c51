import type { ChatChunk, ChatRequest } from '../../src/domain/chat';
import { anthropicProvider } from '../../src/providers/anthropic/provider';
import { UpstreamError } from '../../src/errors/upstream-error';
import type { ProviderContext } from '../../src/providers/types';
import { startSimulator, type Simulator } from '../simulator/server';
import { collect, failure, simulatorContext } from './call-helpers';
import { describeProviderScenarios } from './scenarios';

describeProviderScenarios({ provider: anthropicProvider, baseUrl: (sim) => sim.baseUrls.anthropic });

describe('anthropic adapter against the simulator, beyond the scenario table', () => {
  let sim: Simulator;
  const ctx = (overrides: Partial<ProviderContext> = {}) => simulatorContext(sim.baseUrls.anthropic, overrides);
  const ask = (model: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
    model,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello there' },
    ],
    ...extra,
  });

  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.reset());

  it('sends the key and version headers, the system prompt at the top level and a default max_tokens', async () => {
    await anthropicProvider.chat(ask('sim-model'), ctx());
    const [request] = sim.requests;
    expect(request?.path).toBe('/anthropic/v1/messages');
    expect(request?.headers['x-api-key']).toBe('sim-key');
    expect(request?.headers['anthropic-version']).toBe('2023-06-01');
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toEqual({
      model: 'sim-model',
      max_tokens: 4096,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }],
    });
  });

  it('completes a tool round trip: the tool_use id comes back as the tool_result id', async () => {
    const tools: ChatRequest['tools'] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const first = await anthropicProvider.chat(ask('sim-model', { tools }), ctx());
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(call?.id).toMatch(/^toolu_/);
    const followUp = ask('sim-model', {
      tools,
      messages: [
        ...ask('sim-model').messages,
        { role: 'assistant', content: null, tool_calls: call ? [call] : [] },
        { role: 'tool', tool_call_id: call?.id, content: 'Sunny, 21 °C' },
      ],
    });
    const second = await anthropicProvider.chat(followUp, ctx());
    expect(second.choices[0]?.message.content).toBe('Tool said: Sunny, 21 °C');
    expect(second.choices[0]?.finish_reason).toBe('stop');
  });

  it('maps max_tokens and stop sequences to length and stop', async () => {
    const cut = await anthropicProvider.chat(ask('sim-model', { max_tokens: 2 }), ctx());
    expect(cut.choices[0]).toMatchObject({ message: { content: 'Echo: hello ' }, finish_reason: 'length' });
    const stopped = await anthropicProvider.chat(ask('sim-model', { stop: [' there'] }), ctx());
    expect(stopped.choices[0]).toMatchObject({ message: { content: 'Echo: hello' }, finish_reason: 'stop' });
    const streamed = await collect(anthropicProvider.chatStream(ask('sim-model', { stop: [' there'] }), ctx()));
    expect(streamed.at(-1)?.usage).toEqual(stopped.usage);
  });

  it('clamps a temperature above 1, which the API would refuse', async () => {
    await anthropicProvider.chat(ask('sim-model', { temperature: 1.7, top_p: 0.9 }), ctx());
    expect(sim.requests[0]?.body).toMatchObject({ temperature: 1, top_p: 0.9 });
  });

  it('answers json_schema requests with JSON through the system instruction, streamed too', async () => {
    const format: ChatRequest['response_format'] = { type: 'json_schema', json_schema: { name: 'reply', schema: { type: 'object' } } };
    const chunks = await collect(anthropicProvider.chatStream(ask('sim-model', { response_format: format }), ctx()));
    const text = chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? '')).join('');
    expect(JSON.parse(text)).toEqual({ answer: 'Echo: hello there' });
    expect((sim.requests[0]?.body as { system?: string }).system).toContain('"type":"object"');
  });

  it('treats 529 overloaded as a retryable server error', async () => {
    const error = await failure(anthropicProvider.chat(ask('sim-529'), ctx()));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'server_error', status: 529, retryable: true });
    expect(error?.upstreamBody).toContain('overloaded_error');
  });

  it('throws a retryable server error for an overloaded_error event after streaming began', async () => {
    const received: ChatChunk[] = [];
    const consume = async () => {
      for await (const batch of anthropicProvider.chatStream(ask('sim-stream-error'), ctx())) received.push(...batch);
    };
    const error = await failure(consume());
    expect(error).toMatchObject({ kind: 'server_error', retryable: true });
    expect(error?.message).toContain('Overloaded');
    expect(received.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? '')).join('')).toBe('Echo: ');
  });

  it('names the problem when the simulator refuses a request, as Anthropic would', async () => {
    const error = await failure(anthropicProvider.chat(ask('sim-model', { messages: [{ role: 'assistant', content: 'I spoke first' }] }), ctx()));
    expect(error).toMatchObject({ kind: 'bad_request', status: 400 });
    expect(error?.message).toBe('messages: first message must use the "user" role');
  });
});

describe("the simulator's Anthropic dialect refuses what Anthropic refuses", () => {
  let sim: Simulator;
  const headers = { 'content-type': 'application/json', 'x-api-key': 'sim-key', 'anthropic-version': '2023-06-01' };
  const valid = { model: 'sim-model', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };
  const post = async (body: unknown, sent: Record<string, string> = headers) => {
    const response = await fetch(`${sim.baseUrls.anthropic}/v1/messages`, { method: 'POST', headers: sent, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as { type?: string; error?: { type: string; message: string } } };
  };

  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());

  it('answers a valid request with a message', async () => {
    const { status, body } = await post(valid);
    expect(status).toBe(200);
    expect(body).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Echo: hi' }], stop_reason: 'end_turn' });
  });

  it('refuses a missing key with 401 authentication_error', async () => {
    const { status, body } = await post(valid, { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' });
    expect(status).toBe(401);
    expect(body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });

  const refusals: [string, Record<string, unknown>, string][] = [
    ['a missing max_tokens', { max_tokens: undefined }, 'max_tokens: Field required'],
    ['no messages', { messages: [] }, 'messages: at least one message is required'],
    ['a system role in messages', { messages: [{ role: 'system', content: 'x' }] }, "messages.0.role: Input should be 'user' or 'assistant'"],
    [
      'two user turns in a row',
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      },
      'roles must alternate',
    ],
    ['an empty text block', { messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }, 'text content blocks must be non-empty'],
    ['OpenAI fields', { response_format: { type: 'json_object' } }, 'response_format: Extra inputs are not permitted'],
    ['temperature above 1', { temperature: 1.5 }, 'temperature: Input should be less than or equal to 1'],
    ['a tool without input_schema', { tools: [{ name: 'f' }] }, 'tools.0.input_schema: Field required'],
    [
      'a tool_result without its tool_use',
      { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'r' }] }] },
      'unexpected `tool_use_id`',
    ],
  ];
  it.each(refusals)('refuses %s with 400 invalid_request_error', async (_name, change, message) => {
    const { status, body } = await post({ ...valid, ...change });
    expect(status).toBe(400);
    expect(body.error?.type).toBe('invalid_request_error');
    expect(body.error?.message).toContain(message);
  });

  it('requires the anthropic-version header', async () => {
    const { status, body } = await post(valid, { 'content-type': 'application/json', 'x-api-key': 'sim-key' });
    expect(status).toBe(400);
    expect(body.error?.message).toBe('anthropic-version: header is required');
  });
});
