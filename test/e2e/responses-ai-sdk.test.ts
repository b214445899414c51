import { createOpenAI, type OpenAIProvider } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import type { Tenant } from '../helpers/test-context';
import { setModels, simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * The Vercel AI SDK's default OpenAI provider (`createOpenAI(...)(modelId)`), which calls
 * `POST /v1/responses`, against Switchyard on a real port; upstreams are the provider simulator.
 */

let sim: Simulator;
let h: CompletionsHarness;
let server: ListeningApp;
let tenant: Tenant;
let openai: OpenAIProvider;
/** The bodies the SDK sent to Switchyard, in order. */
const sentBodies: Record<string, unknown>[] = [];

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim) });
  server = await listenOnLoopback(h.app);
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'gpt-4.1-mini': true, 'claude-haiku-4-5': true });
  openai = createOpenAI({
    baseURL: `${server.origin}/v1`,
    apiKey: tenant.api_key,
    fetch: async (url, init) => {
      if (typeof init?.body === 'string') sentBodies.push(JSON.parse(init.body) as Record<string, unknown>);
      return fetch(url, init);
    },
  });
});
afterAll(async () => {
  await server.close();
  await h.close();
  await sim.close();
});

const weather = tool({
  description: 'Current weather of a city',
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ query }) => `Sunny in ${query.replace(/\W+$/, '').split(' ').at(-1)}`,
});

describe('Vercel AI SDK, default OpenAI provider (Responses API)', () => {
  it('generateText answers with text and usage', async () => {
    const result = await generateText({ model: openai('gpt-4.1-mini'), system: 'Be brief.', prompt: 'Hello there' });
    expect(result.text).toBe('Echo: Hello there');
    expect(result.finishReason).toBe('stop');
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.response.id).toMatch(/^resp_/);
    expect(result.response.modelId).toBe('gpt-4.1-mini');
  });

  it('streamText streams the text', async () => {
    const result = streamText({ model: openai('claude-haiku-4-5'), prompt: 'Tell me something nice' });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('Echo: Tell me something nice');
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it('runs a tool call round trip (function_call, then function_call_output)', async () => {
    const result = await generateText({ model: openai('gpt-4.1-mini'), prompt: 'Weather in Oslo?', tools: { get_weather: weather }, stopWhen: stepCountIs(3) });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.toolCalls.map((call) => call.toolName)).toEqual(['get_weather']);
    expect(result.text).toBe('Tool said: Sunny in Oslo');
  });

  it('streams a tool call round trip', async () => {
    const result = streamText({ model: openai('gpt-4.1-mini'), prompt: 'Weather in Rome?', tools: { get_weather: weather }, stopWhen: stepCountIs(3) });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('Tool said: Sunny in Rome');
    expect((await result.steps).length).toBe(2);
  });

  it('continues a conversation whose assistant turn is sent back as an item_reference to the stored response', async () => {
    const first = await generateText({ model: openai('gpt-4.1-mini'), prompt: 'My name is Ada' });
    const messages: ModelMessage[] = [{ role: 'user', content: 'My name is Ada' }, ...first.response.messages, { role: 'user', content: 'What is my name?' }];
    const second = await generateText({ model: openai('gpt-4.1-mini'), messages });
    expect(second.text).toBe('Echo: What is my name?');
    expect(sentBodies.at(-1)?.input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'My name is Ada' }] },
      { type: 'item_reference', id: expect.stringMatching(/^msg_/) },
      { role: 'user', content: [{ type: 'input_text', text: 'What is my name?' }] },
    ]);
    const sent = sim.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    expect(sent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent.messages[1]?.content).toBe('Echo: My name is Ada');
  });
});
