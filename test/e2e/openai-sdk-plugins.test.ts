import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import { AUTO_TOOLS, pluginSpace, searchesFor, usePluginHarness } from '../helpers/plugin-harness';

/**
 * The official OpenAI SDK, unchanged, asking for plugins: the extra body field `plugins` and the
 * `Service-Feature-Flags` header, with steps in streams (SSE comments) that the SDK must get through.
 */
const env = usePluginHarness();
let server: Server;
let baseURL: string;
let client: OpenAI;
let model: string;

beforeAll(async () => {
  server = await new Promise<Server>((resolve) => {
    const listening = env.h.app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const { tenant, models } = await pluginSpace(env);
  model = models.answering.model;
  client = new OpenAI({ apiKey: tenant.api_key, baseURL, maxRetries: 0 });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Switchyard's extra request field: a typed params object, so no cast is needed to send it. */
type WithPlugins<P> = P & { plugins: string[] };

interface SearchMetadata {
  metadata: { search_results: { items: { index: number; url?: string }[] }; extra: { plugins?: { id: string; status: string }[] } };
}

const question = (text: string) => [{ role: 'user' as const, content: text }];

describe('plugins through the OpenAI SDK', () => {
  it('chat.completions.create with plugins: [web-search]', async () => {
    const params: WithPlugins<ChatCompletionCreateParamsNonStreaming> = { model, messages: question('sdk search one [1]'), plugins: ['web-search'] };
    const completion = (await client.chat.completions.create(params)) as ChatCompletion & SearchMetadata;
    expect(completion.choices[0]?.message.content).toBe('Echo: sdk search one [1]');
    expect(completion.metadata.search_results.items[0]).toMatchObject({ index: 1, url: 'https://example.org/result-1' });
    expect(completion.metadata.extra.plugins).toEqual([expect.objectContaining({ id: 'web-search', status: 'ok' })]);
    expect(completion.choices[0]?.message.annotations?.[0]).toMatchObject({ type: 'url_citation', url_citation: { url: 'https://example.org/result-1' } });
    expect(searchesFor(env, 'sdk search one')).toBe(1);
  });

  it('streams with for await: the steps (SSE comments) never reach the SDK, and every chunk has a choice', async () => {
    const params: WithPlugins<ChatCompletionCreateParamsStreaming> = { model, messages: question('sdk search two'), plugins: ['web-search'], stream: true };
    const stream = await client.chat.completions.create(params);
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    for (const chunk of chunks) expect(chunk.choices[0]).toBeDefined();
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Echo: sdk search two');
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter((reason) => reason !== null)).toEqual(['stop']);
  });

  it('chat.completions.stream(...).finalChatCompletion() assembles the answer of a stream with steps', async () => {
    const params: WithPlugins<ChatCompletionCreateParamsStreaming> = { model, messages: question('sdk search three'), plugins: ['web-search'], stream: true };
    const runner = client.chat.completions.stream(params);
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('Echo: sdk search three');
    expect(final.choices[0]?.finish_reason).toBe('stop');
    expect(searchesFor(env, 'sdk search three')).toBe(1);
  });

  it('auto_tools through defaultHeaders: the worker runs web_search and the SDK sees only the final answer', async () => {
    const auto = client.withOptions({ defaultHeaders: AUTO_TOOLS });
    const completion = await auto.chat.completions.create({ model, messages: question('sdk auto tools') });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(completion.choices[0]?.message.content).toContain('Result 1 about sdk auto tools');
  });

  it('auto_tools through request options, streamed: no tool-call deltas reach the SDK', async () => {
    const stream = await client.chat.completions.create({ model, messages: question('sdk auto stream'), stream: true }, { headers: AUTO_TOOLS });
    let text = '';
    for await (const chunk of stream) {
      expect(chunk.choices[0]?.delta.tool_calls).toBeUndefined();
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toMatch(/^Tool said: /);
    expect(searchesFor(env, 'sdk auto stream')).toBe(1);
  });
});
