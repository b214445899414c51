import type { ChatChunk, ChatRequest, ToolCallDelta } from '../../src/domain/chat';
import { UpstreamError, type UpstreamErrorKind } from '../../src/errors/upstream-error';
import type { Provider, ProviderContext } from '../../src/providers/types';
import { watchLoopStalls } from '../helpers/loop-stalls';
import { SIM_BAD_KEY, startSimulator, type Simulator } from '../simulator/server';
import { collect, simulatorContext } from './call-helpers';

/**
 * The scenario table every provider adapter must pass against the simulator. A case that cannot apply
 * to a provider is opted out explicitly, with the reason.
 */
export const SCENARIOS = [
  'simple',
  'stream',
  'tools',
  'streamed tool calls',
  'json mode',
  'usage in stream',
  '400',
  '401',
  '429',
  '5xx',
  'timeout',
  'cut stream',
  'connection reset',
  'cancel',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface ScenarioSubject {
  provider: Provider;
  /** The base URL this provider is configured with, under the simulator. */
  baseUrl(sim: Simulator): string;
  /** Explicit opt-outs: scenario → why it does not apply. */
  optOut?: Partial<Record<ScenarioName, string>>;
}

const question = 'hello there';
const tools: ChatRequest['tools'] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather in a city',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
];

function request(model: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: question },
    ],
    ...extra,
  };
}

const textOf = (chunks: ChatChunk[]) => chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? '')).join('');

function toolCallsOf(chunks: ChatChunk[]): { id?: string; name: string; arguments: string }[] {
  const calls: { id?: string; name: string; arguments: string }[] = [];
  const deltas: ToolCallDelta[] = chunks.flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
  for (const delta of deltas) {
    const call = (calls[delta.index] ??= { name: '', arguments: '' });
    if (delta.id) call.id = delta.id;
    call.name += delta.function?.name ?? '';
    call.arguments += delta.function?.arguments ?? '';
  }
  return calls;
}

async function expectKind(promise: Promise<unknown>, kind: UpstreamErrorKind): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  expect((error as UpstreamError).kind).toBe(kind);
  return error as UpstreamError;
}

export function describeProviderScenarios(subject: ScenarioSubject): void {
  let sim: Simulator;
  const ctx = (overrides: Partial<ProviderContext> = {}) => simulatorContext(subject.baseUrl(sim), overrides);
  const scenario = (name: ScenarioName, body: () => Promise<void>) => {
    const reason = subject.optOut?.[name];
    if (reason) it.skip(`${name} (opted out: ${reason})`, body);
    else it(name, body);
  };

  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());

  describe(`${subject.provider.id} adapter scenarios`, () => {
    scenario('simple', async () => {
      const result = await subject.provider.chat(request('sim-model'), ctx());
      expect(result.choices[0]?.message).toEqual({ role: 'assistant', content: `Echo: ${question}` });
      expect(result.choices[0]?.finish_reason).toBe('stop');
      expect(result.usage.completion_tokens).toBe(3);
      expect(result.usage.prompt_tokens).toBeGreaterThan(0);
      expect(result.usage.total_tokens).toBe(result.usage.prompt_tokens + 3);
    });

    scenario('stream', async () => {
      const chunks = await collect(subject.provider.chatStream(request('sim-model'), ctx()));
      expect(chunks.length).toBeGreaterThan(2);
      expect(textOf(chunks)).toBe(`Echo: ${question}`);
      expect(chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['stop']);
    });

    scenario('tools', async () => {
      const result = await subject.provider.chat(request('sim-model', { tools, tool_choice: 'auto' }), ctx());
      const call = result.choices[0]?.message.tool_calls?.[0];
      expect(call?.function.name).toBe('get_weather');
      expect(JSON.parse(call?.function.arguments ?? '')).toEqual({ query: question });
      expect(call?.id).toEqual(expect.any(String));
      expect(result.choices[0]?.finish_reason).toBe('tool_calls');
    });

    scenario('streamed tool calls', async () => {
      const chunks = await collect(subject.provider.chatStream(request('sim-model', { tools }), ctx()));
      const calls = toolCallsOf(chunks);
      expect(calls).toHaveLength(1);
      expect(calls[0]?.name).toBe('get_weather');
      expect(JSON.parse(calls[0]?.arguments ?? '')).toEqual({ query: question });
      expect(chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['tool_calls']);
    });

    scenario('json mode', async () => {
      const result = await subject.provider.chat(request('sim-model', { response_format: { type: 'json_object' } }), ctx());
      expect(JSON.parse(result.choices[0]?.message.content ?? '')).toEqual({ answer: `Echo: ${question}` });
    });

    scenario('usage in stream', async () => {
      const whole = await subject.provider.chat(request('sim-model'), ctx());
      const chunks = await collect(subject.provider.chatStream(request('sim-model'), ctx()));
      expect(chunks.at(-1)?.usage).toEqual(whole.usage);
    });

    scenario('400', async () => {
      const error = await expectKind(subject.provider.chat(request('sim-400'), ctx()), 'bad_request');
      expect(error.status).toBe(400);
      expect(error.retryable).toBe(false);
      expect(error.message).toContain('Simulated bad request');
    });

    scenario('401', async () => {
      const error = await expectKind(subject.provider.chat(request('sim-model'), ctx({ apiKey: SIM_BAD_KEY })), 'authentication');
      // Gemini answers a bad key with 400 API_KEY_INVALID; the kind is what counts.
      expect([400, 401, 403]).toContain(error.status);
      expect(error.retryable).toBe(false);
    });

    scenario('429', async () => {
      const error = await expectKind(subject.provider.chat(request('sim-429'), ctx()), 'rate_limited');
      expect(error.retryAfterMs).toBe(1000);
      expect(error.retryable).toBe(true);
    });

    scenario('5xx', async () => {
      await expectKind(subject.provider.chat(request('sim-500'), ctx()), 'server_error');
      const error = await expectKind(collect(subject.provider.chatStream(request('sim-503'), ctx())), 'server_error');
      expect(error.status).toBe(503);
      expect(error.retryable).toBe(true);
    });

    scenario('timeout', async () => {
      const clock = watchLoopStalls();
      await expectKind(subject.provider.chat(request('sim-hang'), ctx({ timeoutMs: 200 })), 'timeout');
      await expectKind(collect(subject.provider.chatStream(request('sim-hang'), ctx({ timeoutMs: 200 }))), 'timeout');
      // Two 200 ms timeouts, on the process's own time (however loaded the machine), not the simulator's hang.
      expect(clock.ownMs()).toBeLessThan(2000);
      clock.stop();
    });

    scenario('cut stream', async () => {
      const received: ChatChunk[] = [];
      const consume = async () => {
        for await (const batch of subject.provider.chatStream(request('sim-cut-2'), ctx())) received.push(...batch);
      };
      await expectKind(consume(), 'stream_cut');
      expect(textOf(received)).toBe('Echo: hello ');
      await expectKind(subject.provider.chat(request('sim-cut-2'), ctx()), 'connection');
    });

    scenario('connection reset', async () => {
      await expectKind(subject.provider.chat(request('sim-reset'), ctx()), 'connection');
    });

    scenario('cancel', async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await expectKind(subject.provider.chat(request('sim-hang'), ctx({ signal: controller.signal })), 'aborted');
    });
  });
}
