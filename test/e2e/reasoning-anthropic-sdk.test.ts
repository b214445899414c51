import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, RawMessageStreamEvent, Tool } from '@anthropic-ai/sdk/resources/messages';
import type { Tenant } from '../helpers/test-context';
import { setModels, simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { eventually } from '../helpers/completion-fixtures';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import { SIM_REASONING_TOKENS } from '../simulator/answer';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * Anthropic's `thinking` through the official Anthropic SDK, against Switchyard on a real port, upstreams
 * being the provider simulator: a reasoning model gets it in its own provider's terms (Claude a thinking
 * budget, an OpenAI model `reasoning_effort`, Gemini `thinkingBudget`) and the thinking tokens count in the
 * usage and the log's cost; a model that takes none answers without it, and the metadata's warning says so.
 */

let sim: Simulator;
let h: CompletionsHarness;
let server: ListeningApp;
let tenant: Tenant;
let client: Anthropic;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim) });
  server = await listenOnLoopback(h.app);
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'claude-haiku-4-5': true, 'o4-mini': true, 'gemini-2.5-flash': true, 'gpt-4.1-mini': true });
  client = new Anthropic({ apiKey: tenant.api_key, baseURL: server.origin, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await h.close();
  await sim.close();
});

type WithMetadata<T> = T & { metadata: { model: { model: string }; warning: string } };

/** The body the simulator got from the request the callback makes, on the named upstream. */
async function upstreamOf<T>(dialect: '/anthropic' | '/openai' | '/gemini', make: () => Promise<T>): Promise<{ result: T; body: Record<string, unknown> }> {
  const before = sim.requests.length;
  const result = await make();
  const call = sim.requests.slice(before).find((recorded) => recorded.dialect === dialect);
  if (!call) throw new Error(`no call to ${dialect}`);
  return { result, body: call.body as Record<string, unknown> };
}

/** The request's log row, once written, and what a completion token of its model costs. */
async function logAndPrice(messageId: string, model: string) {
  const log = await eventually(() => h.services.db.log.findUnique({ where: { id: messageId.slice('msg_'.length) } }));
  const row = await h.services.db.model.findFirstOrThrow({ where: { model, is_public: true } });
  return { log, completionTokenCost: row.completion_token_cost };
}

const ask = (content: string) => [{ role: 'user' as const, content }];

describe('messages.create with thinking, answered by Claude', () => {
  it('sends Claude the thinking budget, returns the answer without the thinking block, and counts the thinking tokens', async () => {
    const { result: message, body } = await upstreamOf('/anthropic', () =>
      client.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        messages: ask('Why is the sky blue?'),
      }),
    );
    expect(body).toMatchObject({ max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: Why is the sky blue?' }]);
    const visible = 'Echo: Why is the sky blue?'.split(' ').length;
    expect(message.usage.output_tokens).toBe(visible + SIM_REASONING_TOKENS);
    expect(message.usage.output_tokens_details).toEqual({ thinking_tokens: SIM_REASONING_TOKENS });
    expect((message as WithMetadata<typeof message>).metadata.warning).toBe('');
    const { log, completionTokenCost } = await logAndPrice(message.id, 'claude-haiku-4-5');
    expect(log.completion_tokens).toBe(visible + SIM_REASONING_TOKENS);
    expect(log.completion_tokens_cost).toBeCloseTo((visible + SIM_REASONING_TOKENS) * completionTokenCost, 9);
  });

  it('streams the answer without the thinking block, the thinking tokens in the final usage', async () => {
    const { result, body } = await upstreamOf('/anthropic', async () => {
      const stream = client.messages.stream({
        model: 'claude-haiku-4-5',
        max_tokens: 3000,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: ask('Tell me something nice'),
      });
      const events: RawMessageStreamEvent[] = [];
      stream.on('streamEvent', (event) => events.push(event));
      return { final: await stream.finalMessage(), events };
    });
    expect(body).toMatchObject({ stream: true, thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(result.final.content).toEqual([{ type: 'text', text: 'Echo: Tell me something nice' }]);
    const starts = result.events.flatMap((event) => (event.type === 'content_block_start' ? [event.content_block.type] : []));
    expect(starts).toEqual(['text']);
    expect(result.final.usage.output_tokens).toBe('Echo: Tell me something nice'.split(' ').length + SIM_REASONING_TOKENS);
  });

  it('leaves out a temperature Claude refuses beside thinking, and says so', async () => {
    const { result: message, body } = await upstreamOf('/anthropic', () =>
      client.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 4096,
        thinking: { type: 'adaptive' },
        output_config: { effort: 'low' },
        messages: ask('Hello'),
        // A field this SDK version no longer types, which Anthropic (and Switchyard) still take.
        ...{ temperature: 0.3 },
      }),
    );
    expect(body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(body).not.toHaveProperty('temperature');
    expect((message as WithMetadata<typeof message>).metadata.warning).toBe('temperature left out: claude-haiku-4-5 takes none beside thinking.');
  });

  it('answers a tool result without thinking, which Claude would want its thinking blocks back with, and says so', async () => {
    const tools: Tool[] = [{ name: 'get_weather', input_schema: { type: 'object', properties: { query: { type: 'string' } } } }];
    const create = (messages: MessageParam[]) =>
      client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, tools, messages });
    const messages: MessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
    const { result: first, body: firstBody } = await upstreamOf('/anthropic', () => create(messages));
    expect(firstBody).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    const use = first.content.find((block) => block.type === 'tool_use');
    if (use?.type !== 'tool_use') throw new Error('expected a tool_use block');
    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny' }] });
    const { result: second, body } = await upstreamOf('/anthropic', () => create(messages));
    expect(body).not.toHaveProperty('thinking');
    expect(second.content).toEqual([{ type: 'text', text: 'Tool said: Sunny' }]);
    expect((second as WithMetadata<typeof second>).metadata.warning).toBe(
      'claude-haiku-4-5 answered this tool result without thinking: the thinking blocks Claude needs back with it are not kept.',
    );
  });

  it('refuses a budget that is not under max_tokens, as Anthropic does', async () => {
    const error = await client.messages
      .create({ model: 'claude-haiku-4-5', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: ask('Hi') })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).message).toMatch(/'thinking.budget_tokens' must be less than 'max_tokens'/);
  });
});

describe('messages.create with thinking, answered by another provider', () => {
  it("gives an OpenAI reasoning model the budget's effort, and counts its reasoning tokens", async () => {
    const { result: message, body } = await upstreamOf('/openai', () =>
      client.messages.create({ model: 'o4-mini', max_tokens: 20_000, thinking: { type: 'enabled', budget_tokens: 10_000 }, messages: ask('Hi') }),
    );
    expect(body).toMatchObject({ model: 'o4-mini', reasoning_effort: 'medium', max_completion_tokens: 20_000 });
    expect(message.usage.output_tokens_details).toEqual({ thinking_tokens: SIM_REASONING_TOKENS });
  });

  it('gives Gemini its thinkingBudget', async () => {
    const { result: message, body } = await upstreamOf('/gemini', () =>
      client.messages.create({ model: 'gemini-2.5-flash', max_tokens: 4096, thinking: { type: 'adaptive' }, messages: ask('Hi') }),
    );
    expect(body).toMatchObject({ generationConfig: { thinkingConfig: { thinkingBudget: -1 } } });
    expect(message.usage.output_tokens_details).toEqual({ thinking_tokens: SIM_REASONING_TOKENS });
  });

  it('answers from a model that takes no reasoning setting without it, and the warning says so', async () => {
    const { result: message, body } = await upstreamOf('/openai', () =>
      client.messages.create({ model: 'gpt-4.1-mini', max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: ask('Hi') }),
    );
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: Hi' }]);
    expect(message.usage).not.toHaveProperty('output_tokens_details');
    expect((message as WithMetadata<typeof message>).metadata.warning).toBe(
      "gpt-4.1-mini takes no reasoning setting: it answered without the request's reasoning_effort / thinking.",
    );
  });

  it('sends nothing of reasoning for thinking disabled', async () => {
    const { result: message, body } = await upstreamOf('/anthropic', () =>
      client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 1000, thinking: { type: 'disabled' }, messages: ask('Hi') }),
    );
    expect(body).not.toHaveProperty('thinking');
    expect((message as WithMetadata<typeof message>).metadata.warning).toBe('');
  });
});
