import type { ChatChunk, ChatRequest } from '../../src/domain/chat';
import { geminiProvider } from '../../src/providers/gemini/provider';
import { builtInProviders } from '../../src/providers/registry';
import type { ProviderContext } from '../../src/providers/types';
import { startSimulator, type Simulator } from '../simulator/server';
import { collect, simulatorContext } from './call-helpers';
import { describeProviderScenarios } from './scenarios';

describeProviderScenarios({ provider: geminiProvider, baseUrl: (sim) => sim.baseUrls.gemini });

describe('gemini adapter against the simulator, beyond the scenario table', () => {
  let sim: Simulator;
  const ctx = (overrides: Partial<ProviderContext> = {}) => simulatorContext(sim.baseUrls.gemini, overrides);

  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterEach(() => sim.reset());
  afterAll(() => sim.close());

  it('is registered under the id gemini', () => {
    expect(builtInProviders().get('gemini')).toBe(geminiProvider);
  });

  it('sends the key in x-goog-api-key, never in the URL, and the model in the path', async () => {
    await geminiProvider.chat({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }] }, ctx());
    await expect(collectText(geminiProvider.chatStream({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }] }, ctx()))).resolves.toBe('Echo: hi');
    expect(sim.requests.map((r) => r.path)).toEqual([
      '/gemini/v1beta/models/sim-model:generateContent',
      '/gemini/v1beta/models/sim-model:streamGenerateContent?alt=sse',
    ]);
    expect(sim.requests.every((r) => r.headers['x-goog-api-key'] === 'sim-key')).toBe(true);
  });

  it('passes schemas Gemini accepts even when the client sends JSON Schema extras', async () => {
    const strictSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: { query: { type: ['string', 'null'] }, unit: { $ref: '#/$defs/unit' } },
      required: ['query'],
      $defs: { unit: { type: 'string', enum: ['c', 'f'] } },
    };
    const request: ChatRequest = {
      model: 'sim-model',
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: strictSchema, strict: true } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    };
    const result = await geminiProvider.chat(request, ctx());
    expect(result.choices[0]?.message.tool_calls?.[0]?.function.name).toBe('get_weather');
    const json = await geminiProvider.chat(
      {
        model: 'sim-model',
        messages: [{ role: 'user', content: 'hi' }],
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: strictSchema, strict: true } },
      },
      ctx(),
    );
    expect(JSON.parse(json.choices[0]?.message.content ?? '')).toEqual({ answer: 'Echo: hi' });
  });

  it('completes a tool round trip: the result goes back as a functionResponse under the call name', async () => {
    const tools: ChatRequest['tools'] = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { query: { type: 'string' } } } } },
    ];
    const first = await geminiProvider.chat({ model: 'sim-model', messages: [{ role: 'user', content: 'weather in Oslo' }], tools }, ctx());
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(call).toBeDefined();
    const messages: ChatRequest['messages'] = [
      { role: 'user', content: 'weather in Oslo' },
      { role: 'assistant', content: null, tool_calls: call ? [call] : [] },
      { role: 'tool', tool_call_id: call?.id, content: 'sunny' },
    ];
    const second = await geminiProvider.chat({ model: 'sim-model', messages, tools }, ctx());
    expect(second.choices[0]?.message.content).toBe('Tool said: sunny');
    const sent = sim.requests.at(-1)?.body as { contents: { role: string; parts: object[] }[] };
    expect(sent.contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    expect(sent.contents[2]?.parts).toEqual([{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }]);
  });

  it('maps a missing key (403) to permission and a 429 without Retry-After to its RetryInfo delay', async () => {
    await expect(geminiProvider.chat({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }] }, ctx({ apiKey: '' }))).rejects.toMatchObject({
      kind: 'permission',
      status: 403,
    });
    sim.script('sim-model', [{ kind: 'status', status: 429, retryAfterSeconds: 7 }]);
    await expect(geminiProvider.chat({ model: 'sim-model', messages: [{ role: 'user', content: 'hi' }] }, ctx())).rejects.toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 7000,
    });
  });

  it('has a simulator that refuses what Gemini refuses, so the tests above mean something', async () => {
    const post = (body: unknown, query = '') =>
      fetch(`${sim.baseUrls.gemini}/v1beta/models/sim-model:generateContent${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'sim-key' },
        body: JSON.stringify(body),
      });
    const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
    const unknownField = await post({
      contents,
      tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', additionalProperties: false } }] }],
    });
    expect(unknownField.status).toBe(400);
    expect(await unknownField.json()).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('additionalProperties') },
    });
    expect((await post({ messages: contents })).status).toBe(400);
    expect((await post({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] })).status).toBe(400);
    expect((await post({ contents: [{ role: 'user', parts: [] }] })).status).toBe(400);
    const keyInQuery = await fetch(`${sim.baseUrls.gemini}/v1beta/models/sim-model:generateContent?key=sim-key`, {
      method: 'POST',
      body: JSON.stringify({ contents }),
    });
    expect(keyInQuery.status).toBe(200);
  });

  it('reports max_tokens as finish length in both modes', async () => {
    const request: ChatRequest = { model: 'sim-model', messages: [{ role: 'user', content: 'one two three four' }], max_tokens: 2 };
    const whole = await geminiProvider.chat(request, ctx());
    expect(whole.choices[0]).toMatchObject({ message: { content: 'Echo: one ' }, finish_reason: 'length' });
    const finishes: unknown[] = [];
    for (const chunk of await collect(geminiProvider.chatStream(request, ctx()))) finishes.push(...chunk.choices.map((c) => c.finish_reason).filter(Boolean));
    expect(finishes).toEqual(['length']);
  });
});

async function collectText(stream: AsyncIterable<ChatChunk[]>): Promise<string> {
  let text = '';
  for (const chunk of await collect(stream)) text += chunk.choices.map((c) => c.delta.content ?? '').join('');
  return text;
}
