import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { loadConfig } from '../../src/config/load';
import { hashedEmbedding } from '../../src/providers/test/hashed-embedding';
import { setModels, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import { AUTO_TOOLS, pluginReports, uploadReadyFile } from '../helpers/plugin-harness';
import type { Tenant } from '../helpers/test-context';

/**
 * The day-one tour with no provider key and no network: the official OpenAI SDK against Switchyard on
 * a real port, configured from the environment a newcomer's .env holds (docs/test-backends.md). The
 * test models and the plugins' test backends answer everything.
 */
const DAY_ONE_ENV = { WEB_SEARCH_BACKEND: 'test', EMBEDDINGS_MODEL: 'test-embedding', IMAGES_BACKEND: 'test', TRANSCRIBE_BACKEND: 'test' };

let h: CompletionsHarness;
let server: ListeningApp;
let tenant: Tenant;
let client: OpenAI;

beforeAll(async () => {
  // Only the run's database and Redis from the test environment: no provider key, no plugin backend URL.
  const { DATABASE_URL, REDIS_URL, LOG_LEVEL } = process.env;
  const dayOne = loadConfig({ DATABASE_URL, REDIS_URL, LOG_LEVEL, ...DAY_ONE_ENV });
  h = startCompletionsHarness({ providers: dayOne.providers, plugins: dayOne.plugins });
  server = await listenOnLoopback(h.app);
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'test-echo': true, 'test-embedding': true });
  client = new OpenAI({ apiKey: tenant.api_key, baseURL: `${server.origin}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await h.close();
});

const WEATHER: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } },
};
const TIME: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
};

interface Metadata {
  metadata: {
    search_results: { items: { index: number; source: string; url?: string; file_name?: string; title: string }[] };
    generated_artifacts: { items: Record<string, unknown>[] };
  };
}

async function streamed(
  params: Omit<OpenAI.Chat.ChatCompletionCreateParamsStreaming, 'stream'>,
  headers?: Record<string, string>,
): Promise<ChatCompletionChunk[]> {
  const stream = await client.chat.completions.create({ ...params, stream: true }, headers ? { headers } : undefined);
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('test-echo: tool calls through the OpenAI SDK', () => {
  it('calls a forced tool, with arguments built from the message', async () => {
    const completion = await client.chat.completions.create({
      model: 'test-echo',
      messages: [{ role: 'user', content: 'Paris' }],
      tools: [TIME, WEATHER],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
  });

  it('with auto, calls the tool the message names (else the first)', async () => {
    const named = await client.chat.completions.create({
      model: 'test-echo',
      messages: [{ role: 'user', content: 'Use get_weather for Oslo' }],
      tools: [TIME, WEATHER],
    });
    expect(named.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Use get_weather for Oslo"}' },
    });
    const first = await client.chat.completions.create({
      model: 'test-echo',
      messages: [{ role: 'user', content: 'Oslo' }],
      tools: [TIME, WEATHER],
      tool_choice: 'auto',
    });
    expect(first.choices[0]?.message.tool_calls?.[0]).toMatchObject({ function: { name: 'get_time', arguments: '{"zone":"Oslo"}' } });
    const none = await client.chat.completions.create({
      model: 'test-echo',
      messages: [{ role: 'user', content: 'Oslo' }],
      tools: [TIME],
      tool_choice: 'none',
    });
    expect(none.choices[0]?.message).toMatchObject({ content: 'Oslo' });
    expect(none.choices[0]?.message.tool_calls ?? []).toEqual([]);
  });

  it('streams tool calls as deltas the SDK assembles (forced and auto)', async () => {
    for (const tool_choice of [{ type: 'function' as const, function: { name: 'get_weather' } }, 'auto' as const]) {
      const runner = client.chat.completions.stream({
        model: 'test-echo',
        messages: [{ role: 'user', content: 'A long question about get_weather in Paris' }],
        tools: [TIME, WEATHER],
        tool_choice,
      });
      const final = await runner.finalChatCompletion();
      expect(final.choices[0]?.finish_reason).toBe('tool_calls');
      expect(final.choices[0]?.message.tool_calls?.[0]).toMatchObject({
        function: { name: 'get_weather', arguments: '{"city":"A long question about get_weather in Paris"}' },
      });
    }
    const chunks = await streamed({ model: 'test-echo', messages: [{ role: 'user', content: 'Paris, in a few more words than one' }], tools: [WEATHER] });
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather' } });
    expect(deltas.length).toBeGreaterThan(2);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
  });

  it('ends a two-step tool loop in text that uses the tool result', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.chat.completions.create({ model: 'test-echo', messages, tools: [WEATHER] });
    const call = first.choices[0]?.message.tool_calls?.[0];
    if (!call || call.type !== 'function') throw new Error('expected a function call');
    messages.push(first.choices[0]?.message as ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: '{"sky":"sunny","celsius":21}' });
    const second = await client.chat.completions.create({ model: 'test-echo', messages, tools: [WEATHER] });
    expect(second.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Tool get_weather returned: {"sky":"sunny","celsius":21}' } });
    const secondStreamed = await streamed({ model: 'test-echo', messages, tools: [WEATHER] });
    expect(secondStreamed.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Tool get_weather returned: {"sky":"sunny","celsius":21}');
  });
});

describe('test-echo: n choices through the OpenAI SDK', () => {
  it('answers n choices, whole and streamed', async () => {
    const whole = await client.chat.completions.create({ model: 'test-echo', n: 2, messages: [{ role: 'user', content: 'Twice, please' }] });
    expect(whole.choices.map((c) => [c.index, c.message.content])).toEqual([
      [0, 'Twice, please'],
      [1, 'Twice, please'],
    ]);
    const stream = await client.chat.completions.create({ model: 'test-echo', n: 2, stream: true, messages: [{ role: 'user', content: 'Twice, please' }] });
    const texts = ['', ''];
    for await (const chunk of stream) for (const choice of chunk.choices) texts[choice.index] += choice.delta.content ?? '';
    expect(texts).toEqual(['Twice, please', 'Twice, please']);
  });
});

describe('test-echo: JSON mode through the OpenAI SDK', () => {
  it('answers json_object with a JSON document built from the message', async () => {
    const completion = await client.chat.completions.create({
      model: 'test-echo',
      messages: [{ role: 'user', content: 'Reply in JSON: hello' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ answer: 'Reply in JSON: hello' });
  });

  it('answers json_schema with a document the schema accepts (streamed too)', async () => {
    const schema = {
      type: 'object',
      properties: {
        city: { type: 'string' },
        temperature: { type: 'number' },
        sunny: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        unit: { type: 'string', enum: ['C', 'F'] },
      },
      required: ['city', 'temperature', 'sunny', 'tags', 'unit'],
      additionalProperties: false,
    };
    const response_format = { type: 'json_schema' as const, json_schema: { name: 'weather', strict: true, schema } };
    const completion = await client.chat.completions.create({ model: 'test-echo', messages: [{ role: 'user', content: 'Paris' }], response_format });
    const expected = { city: 'Paris', temperature: 0, sunny: false, tags: [], unit: 'C' };
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual(expected);
    const chunks = await streamed({ model: 'test-echo', messages: [{ role: 'user', content: 'Paris' }], response_format });
    expect(JSON.parse(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''))).toEqual(expected);
  });
});

describe('test-embedding through the OpenAI SDK', () => {
  const input = ['The quick brown fox', 'jumps over the lazy dog'];

  it('gives the documented vectors as floats and as base64 (the SDK default), shortened with dimensions', async () => {
    const floats = await client.embeddings.create({ model: 'test-embedding', input, encoding_format: 'float' });
    expect(floats.model).toBe('test-embedding');
    expect(floats.data.map((item) => item.embedding.length)).toEqual([256, 256]);
    floats.data.forEach((item, i) => item.embedding.forEach((x, j) => expect(x).toBeCloseTo(hashedEmbedding(input[i] as string)[j] as number, 12)));
    expect(floats.usage.prompt_tokens).toBeGreaterThan(0);
    // Without encoding_format the SDK asks for base64 and decodes it: float32 of the same vectors.
    const decoded = await client.embeddings.create({ model: 'test-embedding', input });
    decoded.data.forEach((item, i) => item.embedding.forEach((x, j) => expect(x).toBeCloseTo(floats.data[i]?.embedding[j] as number, 6)));
    const raw = await client.embeddings.create({ model: 'test-embedding', input: input[0] as string, encoding_format: 'base64' });
    const b64 = raw.data[0]?.embedding as unknown as string;
    const bytes = Buffer.from(b64, 'base64');
    expect(bytes.length).toBe(256 * 4);
    expect(bytes.readFloatLE(0)).toBeCloseTo(floats.data[0]?.embedding[0] as number, 6);
    const short = await client.embeddings.create({ model: 'test-embedding', input: input[0] as string, dimensions: 64, encoding_format: 'float' });
    expect(short.data[0]?.embedding).toHaveLength(64);
    short.data[0]?.embedding.forEach((x, j) => expect(x).toBeCloseTo(hashedEmbedding(input[0] as string, 64)[j] as number, 12));
  });

  it('refuses more dimensions than it has with 400', async () => {
    await expect(client.embeddings.create({ model: 'test-embedding', input: 'x', dimensions: 512 })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('at most 256'),
    });
  });
});

describe('plugins with their test backends', () => {
  it('auto_tools picks web-search (WEB_SEARCH_BACKEND=test): it runs, its fixed results come back, and the answer uses them', async () => {
    const auto = client.withOptions({ defaultHeaders: AUTO_TOOLS });
    const completion = (await auto.chat.completions.create({
      model: 'test-echo',
      messages: [{ role: 'user', content: 'What is new in Switchyard this week?' }],
    })) as ChatCompletion & Metadata;
    expect(pluginReports(completion)).toEqual([expect.objectContaining({ id: 'web-search', status: 'ok' })]);
    expect(completion.metadata.search_results.items.map((item) => item.url)).toEqual([
      'https://example.com/switchyard-test/1',
      'https://example.com/switchyard-test/2',
      'https://example.com/switchyard-test/3',
    ]);
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { content: expect.stringMatching(/^Tool web_search returned: [\s\S]*Switchyard test search result 1/) },
    });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
  });

  it('auto_tools streams the same tool loop: no tool-call delta reaches the SDK', async () => {
    const chunks = await streamed({ model: 'test-echo', messages: [{ role: 'user', content: 'Search the web for Switchyard' }] }, AUTO_TOOLS);
    for (const chunk of chunks) expect(chunk.choices[0]?.delta.tool_calls).toBeUndefined();
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toMatch(/^Tool web_search returned: /);
  });

  it('space-search ranks an uploaded file with the test embedding model (hybrid), also when auto_tools names it', async () => {
    const garden = await uploadReadyFile(h, tenant, { name: 'garden.txt', text: 'Gardening notes: water the roses weekly and prune them in March.' });
    await uploadReadyFile(h, tenant, { name: 'invoice.txt', text: 'Invoice terms: payment within thirty days of delivery.' });
    const stored = await h.services.db.spaceFileChunk.findMany({ where: { file_id: garden } });
    expect(stored.map((chunk) => chunk.embedding.length)).toEqual([256]);
    // A misspelling full text cannot match: only the vectors find the file.
    const params = { model: 'test-echo', messages: [{ role: 'user' as const, content: 'gardning' }], plugins: ['space-search'] };
    const completion = (await client.chat.completions.create(params)) as ChatCompletion & Metadata;
    expect(completion.metadata.search_results.items[0]).toMatchObject({ source: 'space', file_name: 'garden.txt' });
    const auto = (await client.chat.completions.create(
      { model: 'test-echo', messages: [{ role: 'user', content: 'Use space_search: when to prune the roses?' }] },
      { headers: AUTO_TOOLS },
    )) as ChatCompletion & Metadata;
    expect(pluginReports(auto)).toEqual([expect.objectContaining({ id: 'space-search', status: 'ok' })]);
    expect(auto.metadata.search_results.items[0]).toMatchObject({ file_name: 'garden.txt' });
  });

  it('image-generation-generic draws test PNGs (IMAGES_BACKEND=test)', async () => {
    const params = { model: 'test-echo', messages: [{ role: 'user' as const, content: 'A lighthouse at dusk' }], plugins: ['image-generation-generic'] };
    const completion = (await client.chat.completions.create(params)) as ChatCompletion & Metadata;
    const [image] = completion.metadata.generated_artifacts.items;
    expect(image).toMatchObject({ type: 'image', mime_type: 'image/png', size: '1024x1024', revised_prompt: expect.stringContaining('Test image') });
    const png = Buffer.from(String(image?.b64_json), 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1024, 1024]);
    expect(pluginReports(completion)).toEqual([expect.objectContaining({ id: 'image-generation-generic', status: 'ok', cost: 0 })]);
  });

  it('transcribe-audio gives the fixed test transcript (TRANSCRIBE_BACKEND=test)', async () => {
    const params = {
      model: 'test-echo',
      messages: [{ role: 'user' as const, content: 'What is said?' }],
      plugins: ['transcribe-audio'],
      files: [`data:audio/wav;base64,${oneSecondWav().toString('base64')}`],
    };
    const completion = (await client.chat.completions.create(params)) as ChatCompletion & Metadata;
    expect(completion.metadata.generated_artifacts.items).toEqual([
      expect.objectContaining({
        type: 'transcript',
        text: expect.stringMatching(/^Test transcript \(TRANSCRIBE_BACKEND=test\), not a transcription: .* holds 16044 bytes of audio\/wav audio\.$/),
        duration_seconds: 1,
      }),
    ]);
  });
});

/** One second of silence: 8 kHz, mono, 16-bit PCM. */
function oneSecondWav(): Buffer {
  const data = Buffer.alloc(16_000);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
