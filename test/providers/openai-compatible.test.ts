import type { ChatChunk, ChatRequest } from '../../src/domain/chat';
import { UpstreamError } from '../../src/errors/upstream-error';
import { OpenAiCompatibleProvider } from '../../src/providers/openai-compatible/provider';
import { OPENAI_COMPATIBLE_VENDORS, type OpenAiCompatibleVendor } from '../../src/providers/openai-compatible/vendors';
import type { ProviderContext } from '../../src/providers/types';
import { startSimulator, type Simulator } from '../simulator/server';
import { collect, failure, simulatorContext } from './call-helpers';
import { describeProviderScenarios, type ScenarioSubject } from './scenarios';

const optOuts: Partial<Record<OpenAiCompatibleVendor['id'], ScenarioSubject['optOut']>> = {
  mistral: {
    'usage in stream':
      "the simulator's OpenAI dialect reports stream usage only when asked with stream_options, which Mistral refuses (extra_forbidden); " +
      "Mistral's own usage-on-the-finish-chunk is covered by test/unit/openai-compatible-stream.test.ts",
  },
};

// Every vendor of the family runs the whole table against the simulator's OpenAI dialect.
for (const vendor of OPENAI_COMPATIBLE_VENDORS) {
  describe(vendor.id, () => {
    describeProviderScenarios({ provider: new OpenAiCompatibleProvider(vendor), baseUrl: (sim) => sim.baseUrls.openai, optOut: optOuts[vendor.id] });
  });
}

const vendorById = (id: string): OpenAiCompatibleVendor => {
  const found = OPENAI_COMPATIBLE_VENDORS.find((v) => v.id === id);
  if (!found) throw new Error(`no vendor ${id}`);
  return found;
};

describe('OpenAI-compatible adapters against the simulator, beyond the scenario table', () => {
  let sim: Simulator;
  const openai = new OpenAiCompatibleProvider(vendorById('openai'));
  const mistral = new OpenAiCompatibleProvider(vendorById('mistral'));
  const ollama = new OpenAiCompatibleProvider(vendorById('ollama'));
  const ctx = (overrides: Partial<ProviderContext> = {}) => simulatorContext(sim.baseUrls.openai, overrides);
  const ask = (model: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
    model,
    messages: [
      { role: 'developer', content: 'Be brief.' },
      { role: 'user', content: 'hello there' },
    ],
    ...extra,
  });
  const lastBody = () => sim.requests.at(-1)?.body as Record<string, unknown>;

  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.reset());

  it('posts to <base>/chat/completions with bearer auth, and reports the upstream id and model', async () => {
    const result = await openai.chat(ask('sim-model', { temperature: 0.2, max_tokens: 50, seed: 7 }), ctx());
    const [request] = sim.requests;
    expect(request?.path).toBe('/openai/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sim-key');
    expect(request?.body).toEqual({
      model: 'sim-model',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'hello there' },
      ],
      temperature: 0.2,
      max_tokens: 50,
      seed: 7,
      stream: false,
    });
    expect(result).toMatchObject({ upstreamId: 'chatcmpl-sim', model: 'sim-model' });
  });

  it('sends max_completion_tokens (and no sampling fields) to OpenAI reasoning models, which refuse max_tokens', async () => {
    const result = await openai.chat(ask('o3-mini', { max_tokens: 2, temperature: 0.5 }), ctx());
    expect(lastBody()).toMatchObject({ max_completion_tokens: 2 });
    expect(lastBody()).not.toHaveProperty('max_tokens');
    expect(lastBody()).not.toHaveProperty('temperature');
    expect(result.choices[0]).toMatchObject({ message: { content: 'Echo: hello ' }, finish_reason: 'length' });
  });

  it('asks OpenAI for stream usage, and ignores the usage: null on earlier chunks', async () => {
    const chunks = await collect(openai.chatStream(ask('sim-model'), ctx()));
    expect(lastBody()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(chunks.at(-1)).toEqual({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === undefined)).toBe(true);
  });

  it('passes unknown client fields through, without letting them override its own', async () => {
    await openai.chat(ask('sim-model', { extra: { verbosity: 'low', parallel_tool_calls: false, model: 'other', stream: true } }), ctx());
    expect(lastBody()).toMatchObject({ model: 'sim-model', stream: false, verbosity: 'low', parallel_tool_calls: false });
  });

  it('sends Mistral developer messages as system, no stream_options, and random_seed for seed', async () => {
    await collect(mistral.chatStream(ask('sim-model', { seed: 3, user: 'u-1' }), ctx()));
    const body = lastBody();
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello there' },
    ]);
    expect(body).toMatchObject({ stream: true, random_seed: 3 });
    expect(body).not.toHaveProperty('stream_options');
    expect(body).not.toHaveProperty('seed');
    expect(body).not.toHaveProperty('user');
  });

  it('completes a tool round trip on Mistral with tool call ids rewritten consistently', async () => {
    const tools: ChatRequest['tools'] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const first = await mistral.chat(ask('sim-model', { tools }), ctx());
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    const followUp = ask('sim-model', {
      tools,
      messages: [
        ...ask('sim-model').messages,
        { role: 'assistant', content: null, tool_calls: call ? [call] : [] },
        { role: 'tool', tool_call_id: call?.id, content: 'Sunny' },
      ],
    });
    const second = await mistral.chat(followUp, ctx());
    expect(second.choices[0]?.message.content).toBe('Tool said: Sunny');
    const sent = lastBody().messages as { tool_calls?: { id: string }[]; tool_call_id?: string }[];
    const sentId = sent[2]?.tool_calls?.[0]?.id;
    expect(sentId).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(sent[3]?.tool_call_id).toBe(sentId);
  });

  it('turns an {"error": ...} event inside a stream into a UpstreamError, after the deltas before it', async () => {
    const received: ChatChunk[] = [];
    const consume = async () => {
      for await (const batch of openai.chatStream(ask('sim-stream-error'), ctx())) received.push(...batch);
    };
    const error = await failure(consume());
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'server_error', provider: 'openai' });
    expect(error?.message).toContain('Simulated failure during generation');
    expect(received.flatMap((c) => c.choices.map((choice) => choice.delta.content))).toEqual(['Echo: ']);
  });

  it('calls keyless local servers without an Authorization header', async () => {
    // The simulator refuses a missing key with 401, which proves no header was sent.
    const error = await failure(ollama.chat(ask('sim-model'), ctx({ apiKey: '' })));
    expect(error).toMatchObject({ kind: 'authentication', status: 401 });
    expect(sim.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  it('names itself after the vendor in errors', async () => {
    const error = await failure(mistral.chat(ask('sim-429'), ctx()));
    expect(error).toMatchObject({ kind: 'rate_limited', provider: 'mistral', retryAfterMs: 1000 });
  });
});
