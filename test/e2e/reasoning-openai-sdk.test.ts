import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { Tenant } from '../helpers/test-context';
import { setModels, simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { eventually } from '../helpers/completion-fixtures';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import { SIM_REASONING_TOKENS } from '../simulator/answer';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * OpenAI's `reasoning_effort` (chat completions) and `reasoning.effort` (Responses) through the official
 * OpenAI SDK, against Switchyard on a real port, upstreams being the provider simulator: a reasoning
 * model gets it in its own provider's terms and its reasoning tokens count in the usage and the log's
 * cost; a model that takes none answers without it, and the metadata's warning says so.
 */

let sim: Simulator;
let h: CompletionsHarness;
let server: ListeningApp;
let tenant: Tenant;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim) });
  server = await listenOnLoopback(h.app);
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'o4-mini': true, 'gpt-4.1-mini': true, 'claude-haiku-4-5': true, 'gemini-2.5-flash': true, 'gemini-2.0-flash': true });
  client = new OpenAI({ apiKey: tenant.api_key, baseURL: `${server.origin}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await h.close();
  await sim.close();
});

interface Warned {
  metadata: { warning: string };
}
interface SwitchyardWarned {
  switchyard: { warning: string };
}

/** The body the simulator got from the request the callback makes, on the named upstream. */
async function upstreamOf<T>(dialect: '/anthropic' | '/openai' | '/gemini', make: () => Promise<T>): Promise<{ result: T; body: Record<string, unknown> }> {
  const before = sim.requests.length;
  const result = await make();
  const call = sim.requests.slice(before).find((recorded) => recorded.dialect === dialect);
  if (!call) throw new Error(`no call to ${dialect}`);
  return { result, body: call.body as Record<string, unknown> };
}

async function logAndPrice(logId: string, model: string) {
  const log = await eventually(() => h.services.db.log.findUnique({ where: { id: logId } }));
  const row = await h.services.db.model.findFirstOrThrow({ where: { model, is_public: true } });
  return { log, completionTokenCost: row.completion_token_cost };
}

const ask = (content: string): OpenAI.Chat.ChatCompletionMessageParam[] => [{ role: 'user', content }];
const words = (text: string) => text.split(' ').length;

describe('chat.completions.create with reasoning_effort', () => {
  it('sends an OpenAI reasoning model its effort, reports its reasoning tokens, and bills them as output', async () => {
    const { result: completion, body } = await upstreamOf('/openai', () =>
      client.chat.completions.create({ model: 'o4-mini', reasoning_effort: 'high', messages: ask('Why is the sky blue?') }),
    );
    expect(body).toMatchObject({ model: 'o4-mini', reasoning_effort: 'high' });
    const visible = words('Echo: Why is the sky blue?');
    expect(completion.usage).toMatchObject({
      completion_tokens: visible + SIM_REASONING_TOKENS,
      completion_tokens_details: { reasoning_tokens: SIM_REASONING_TOKENS },
    });
    expect((completion as typeof completion & Warned).metadata.warning).toBe('');
    const { log, completionTokenCost } = await logAndPrice(completion.id, 'o4-mini');
    expect(log.completion_tokens).toBe(visible + SIM_REASONING_TOKENS);
    expect(log.completion_tokens_cost).toBeCloseTo((visible + SIM_REASONING_TOKENS) * completionTokenCost, 9);
  });

  it("streams, the reasoning tokens in the usage chunk's completion_tokens_details", async () => {
    const { result: chunks, body } = await upstreamOf('/openai', async () => {
      const stream = await client.chat.completions.create({
        model: 'o4-mini',
        reasoning_effort: 'low',
        stream: true,
        stream_options: { include_usage: true },
        messages: ask('Hello'),
      });
      const received: OpenAI.Chat.ChatCompletionChunk[] = [];
      for await (const chunk of stream) received.push(chunk);
      return received;
    });
    expect(body).toMatchObject({ stream: true, reasoning_effort: 'low' });
    expect(chunks.at(-1)?.usage?.completion_tokens_details).toEqual({ reasoning_tokens: SIM_REASONING_TOKENS });
  });

  it('gives Claude a thinking budget, with room for the answer above it', async () => {
    const { result: completion, body } = await upstreamOf('/anthropic', () =>
      client.chat.completions.create({ model: 'claude-haiku-4-5', reasoning_effort: 'low', temperature: 0.7, messages: ask('Hi') }),
    );
    expect(body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 1024 + 4096 });
    expect(body).not.toHaveProperty('temperature');
    expect(completion.choices[0]?.message.content).toBe('Echo: Hi');
    expect(completion.usage?.completion_tokens_details).toEqual({ reasoning_tokens: SIM_REASONING_TOKENS });
    expect((completion as typeof completion & Warned).metadata.warning).toBe('temperature left out: claude-haiku-4-5 takes none beside thinking.');
  });

  it('gives Gemini its thinkingBudget', async () => {
    const { result: completion, body } = await upstreamOf('/gemini', () =>
      client.chat.completions.create({ model: 'gemini-2.5-flash', reasoning_effort: 'medium', messages: ask('Hi') }),
    );
    expect(body).toMatchObject({ generationConfig: { thinkingConfig: { thinkingBudget: 8192 } } });
    expect(completion.usage).toMatchObject({
      completion_tokens: words('Echo: Hi') + SIM_REASONING_TOKENS,
      completion_tokens_details: { reasoning_tokens: SIM_REASONING_TOKENS },
    });
  });

  it.each([['gpt-4.1-mini', '/openai'] as const, ['gemini-2.0-flash', '/gemini'] as const])(
    'answers from %s, which takes no reasoning setting, without it; the warning says so',
    async (model, dialect) => {
      const { result: completion, body } = await upstreamOf(dialect, () =>
        client.chat.completions.create({ model, reasoning_effort: 'high', messages: ask('Hi') }),
      );
      expect(JSON.stringify(body)).not.toMatch(/reasoning_effort|thinkingConfig/);
      expect(completion.choices[0]?.message.content).toBe('Echo: Hi');
      expect(completion.usage).not.toHaveProperty('completion_tokens_details');
      expect((completion as typeof completion & Warned).metadata.warning).toBe(
        `${model} takes no reasoning setting: it answered without the request's reasoning_effort / thinking.`,
      );
    },
  );

  it('refuses an effort OpenAI does not have, naming the field', async () => {
    const error = await client.chat.completions
      .create({ model: 'o4-mini', messages: ask('Hi'), ...({ reasoning_effort: 'enormous' } as object) })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('reasoning_effort');
  });
});

describe('responses.create with reasoning', () => {
  it('sends a reasoning model the effort and reports its reasoning tokens in output_tokens_details', async () => {
    const { result, body } = await upstreamOf('/openai', () =>
      client.responses.create({ model: 'o4-mini', reasoning: { effort: 'low' }, input: 'Why is the sky blue?' }).withResponse(),
    );
    expect(body).toMatchObject({ model: 'o4-mini', reasoning_effort: 'low' });
    const { data, response } = result;
    expect(data.reasoning).toEqual({ effort: 'low', summary: null });
    expect(data.usage?.output_tokens_details).toEqual({ reasoning_tokens: SIM_REASONING_TOKENS });
    expect(data.usage?.output_tokens).toBe(words('Echo: Why is the sky blue?') + SIM_REASONING_TOKENS);
    expect((data as typeof data & SwitchyardWarned).switchyard.warning).toBe('');
    const { log, completionTokenCost } = await logAndPrice(response.headers.get('x-switchyard-log-id') ?? '', 'o4-mini');
    expect(log.completion_tokens_cost).toBeCloseTo((data.usage?.output_tokens ?? 0) * completionTokenCost, 9);
  });

  it('streams, the reasoning tokens in the completed response', async () => {
    const { result: events, body } = await upstreamOf('/gemini', async () => {
      const stream = await client.responses.create({ model: 'gemini-2.5-flash', reasoning: { effort: 'high' }, input: 'Hello', stream: true });
      const received: ResponseStreamEvent[] = [];
      for await (const event of stream) received.push(event);
      return received;
    });
    expect(body).toMatchObject({ generationConfig: { thinkingConfig: { thinkingBudget: 24576 } } });
    const completed = events.find((event) => event.type === 'response.completed');
    if (completed?.type !== 'response.completed') throw new Error('no response.completed');
    expect(completed.response.usage?.output_tokens_details).toEqual({ reasoning_tokens: SIM_REASONING_TOKENS });
  });

  it('answers from a model that takes no reasoning setting without it; the warning says so', async () => {
    const { result: data, body } = await upstreamOf('/openai', () =>
      client.responses.create({ model: 'gpt-4.1-mini', reasoning: { effort: 'high' }, input: 'Hi' }),
    );
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(data.output_text).toBe('Echo: Hi');
    expect(data.usage?.output_tokens_details).toEqual({ reasoning_tokens: 0 });
    expect((data as typeof data & SwitchyardWarned).switchyard.warning).toBe(
      "gpt-4.1-mini takes no reasoning setting: it answered without the request's reasoning_effort / thinking.",
    );
  });
});
