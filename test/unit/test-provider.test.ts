import pino from 'pino';
import type { ChatChunk, ChatMessage, ChatRequest, ToolDefinition } from '../../src/domain/chat';
import { UpstreamError } from '../../src/errors/upstream-error';
import { buildToolCall, echoAnswer, toolNamedIn } from '../../src/providers/test/echo-answer';
import { hashedEmbedding, TEST_EMBEDDING_DIMENSIONS, testEmbeddings } from '../../src/providers/test/hashed-embedding';
import { testProvider } from '../../src/providers/test/provider';
import { valueForSchema } from '../../src/providers/test/schema-value';
import { embed } from '../../src/plugins/space-search/embeddings';
import { readSpaceSearchConfig } from '../../src/config/plugins/space-search';

const tool = (name: string, parameters?: Record<string, unknown>): ToolDefinition => ({
  type: 'function',
  function: { name, ...(parameters ? { parameters } : {}) },
});
const WEATHER = tool('get_weather', {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
  required: ['city', 'days'],
});
const SEARCH = tool('web_search', {
  type: 'object',
  properties: { query: { type: 'string', minLength: 1 } },
  required: ['query'],
  additionalProperties: false,
});
const user = (content: string): ChatMessage => ({ role: 'user', content });
const echo = (patch: Partial<ChatRequest>): ChatRequest => ({ model: 'echo', messages: [user('Weather in Paris')], ...patch });
const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);
const length = (v: number[]) => Math.sqrt(dot(v, v));

describe('hashedEmbedding (test-embedding)', () => {
  it('gives the same unit-length 256-dimension vector for the same text, every time', () => {
    const a = hashedEmbedding('The quick brown fox');
    expect(a).toHaveLength(TEST_EMBEDDING_DIMENSIONS);
    expect(length(a)).toBeCloseTo(1, 12);
    expect(hashedEmbedding('The quick brown fox')).toEqual(a);
    // Case and runs of spaces do not matter.
    expect(hashedEmbedding('  the QUICK   brown fox ')).toEqual(a);
  });

  it('puts texts that share letter sequences closer than unrelated texts', () => {
    const query = hashedEmbedding('invoice payment terms');
    expect(dot(query, hashedEmbedding('Payment terms of the invoice: 30 days'))).toBeGreaterThan(dot(query, hashedEmbedding('A recipe for tomato soup')) + 0.2);
  });

  it('shortens as OpenAI does: the first `dimensions` buckets of the full vector, scaled to length 1', () => {
    const full = hashedEmbedding('shorten me please');
    const short = hashedEmbedding('shorten me please', 64);
    expect(short).toHaveLength(64);
    expect(length(short)).toBeCloseTo(1, 12);
    const norm = length(full.slice(0, 64));
    short.forEach((x, i) => expect(x).toBeCloseTo((full[i] as number) / norm, 12));
  });

  it('embeds token ids, counts tokens, and refuses more dimensions than it has', () => {
    const result = testEmbeddings([[1, 2, 3], [4]], 8);
    expect(result.vectors.map((v) => v.length)).toEqual([8, 8]);
    expect(result.promptTokens).toBe(4);
    expect(testEmbeddings(['abcdefgh']).promptTokens).toBe(2);
    expect(() => testEmbeddings(['x'], 257)).toThrow(expect.objectContaining({ kind: 'bad_request', message: expect.stringContaining('at most 256') }));
  });

  it('never gives a vector without length', () => {
    for (const text of ['a', ' ', 'zz', '日本']) expect(length(hashedEmbedding(text, 1))).toBeCloseTo(1, 12);
  });
});

describe('valueForSchema', () => {
  it.each([
    ['a string', { type: 'string' }, 'seed'],
    ['a bounded string', { type: 'string', minLength: 6, maxLength: 8 }, 'seed..'],
    ['a cut string', { type: 'string', maxLength: 2 }, 'se'],
    ['a format', { type: 'string', format: 'date' }, '1970-01-01'],
    ['an enum', { enum: ['b', 'a'] }, 'b'],
    ['a const', { const: 42 }, 42],
    ['an integer with a minimum', { type: 'integer', minimum: 3 }, 3],
    ['a number above an exclusive minimum', { type: 'number', exclusiveMinimum: 1 }, 1.5],
    ['a boolean', { type: 'boolean' }, false],
    ['a nullable string', { type: ['null', 'string'] }, 'seed'],
    ['an array of minItems', { type: 'array', items: { type: 'integer' }, minItems: 2 }, [0, 0]],
    ['the first anyOf branch', { anyOf: [{ type: 'number' }, { type: 'string' }] }, 0],
    ['required properties only', { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] }, { a: 'seed' }],
    [
      'a local $ref',
      {
        type: 'object',
        properties: { p: { $ref: '#/$defs/P' } },
        required: ['p'],
        $defs: { P: { type: 'object', properties: { x: { type: 'boolean' } }, required: ['x'] } },
      },
      { p: { x: false } },
    ],
  ])('builds %s', (_label, schema, expected) => {
    expect(valueForSchema(schema, 'seed')).toEqual(expected);
  });

  it('stops at a recursive schema instead of looping', () => {
    expect(JSON.stringify(valueForSchema({ type: 'object', properties: { child: { $ref: '#' } }, required: ['child'] }, 's'))).toMatch(/"child":null\}+$/);
    const node = { type: 'object', properties: { next: { $ref: '#/$defs/Node' } }, required: ['next'] };
    expect(JSON.stringify(valueForSchema({ $ref: '#/$defs/Node', $defs: { Node: node } }, 's'))).toMatch(/"next":null\}+$/);
  });
});

describe('echoAnswer: tool calls', () => {
  it('calls the forced tool, with arguments built from the last user message', () => {
    const answer = echoAnswer(echo({ tools: [SEARCH, WEATHER], tool_choice: { type: 'function', function: { name: 'get_weather' } } }));
    expect(answer).toEqual({
      kind: 'tool_call',
      call: {
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Weather in Paris","days":1}' },
      },
    });
  });

  it('with auto, calls the tool the message names (earliest mention), else the first', () => {
    expect(echoAnswer(echo({ tools: [SEARCH, WEATHER], messages: [user('use get-weather, not web search')] }))).toMatchObject({
      call: { function: { name: 'get_weather' } },
    });
    expect(echoAnswer(echo({ tools: [SEARCH, WEATHER], tool_choice: 'auto' }))).toMatchObject({
      call: { function: { name: 'web_search', arguments: '{"query":"Weather in Paris"}' } },
    });
    expect(toolNamedIn([SEARCH], 'research this')).toBeUndefined();
  });

  it('answers text with none, and refuses a forced tool that is not offered', () => {
    expect(echoAnswer(echo({ tools: [SEARCH], tool_choice: 'none' }))).toEqual({ kind: 'text', text: 'Weather in Paris' });
    expect(() => echoAnswer(echo({ tools: [SEARCH], tool_choice: { type: 'function', function: { name: 'nope' } } }))).toThrow(UpstreamError);
  });

  it('after the tool answered, answers in text with its result (auto), while required still calls', () => {
    const call = buildToolCall(WEATHER, { messages: [user('Weather in Paris')] });
    const messages: ChatMessage[] = [
      user('Weather in Paris'),
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: call.id, content: 'Sunny, 21 °C' },
    ];
    expect(echoAnswer(echo({ tools: [WEATHER], messages }))).toEqual({ kind: 'text', text: 'Tool get_weather returned: Sunny, 21 °C' });
    expect(echoAnswer(echo({ messages }))).toEqual({ kind: 'text', text: 'Tool get_weather returned: Sunny, 21 °C' });
    expect(echoAnswer(echo({ tools: [WEATHER], tool_choice: 'required', messages }))).toMatchObject({ kind: 'tool_call' });
  });

  it('gives a call the same id for the same conversation, another for another turn', () => {
    const first = buildToolCall(SEARCH, { messages: [user('a')] });
    expect(buildToolCall(SEARCH, { messages: [user('a')] }).id).toBe(first.id);
    expect(buildToolCall(SEARCH, { messages: [user('a'), user('a')] }).id).not.toBe(first.id);
  });

  it('calls a tool without parameters with an empty object', () => {
    expect(echoAnswer(echo({ tools: [tool('ping')] }))).toMatchObject({ call: { function: { name: 'ping', arguments: '{}' } } });
  });
});

describe('echoAnswer: JSON mode', () => {
  it('wraps the text for json_object', () => {
    expect(echoAnswer(echo({ response_format: { type: 'json_object' } }))).toEqual({ kind: 'text', text: '{"answer":"Weather in Paris"}' });
  });

  it('fills the required properties of a json_schema', () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, warm: { type: 'boolean' }, note: { type: 'string' } },
      required: ['city', 'warm'],
      additionalProperties: false,
    };
    const answer = echoAnswer(echo({ response_format: { type: 'json_schema', json_schema: { name: 'w', schema, strict: true } } }));
    expect(answer.kind === 'text' && JSON.parse(answer.text)).toEqual({ city: 'Weather in Paris', warm: false });
  });

  it('leaves plain requests as they were: the last user message', () => {
    expect(echoAnswer(echo({ messages: [{ role: 'system', content: 'be brief' }, user('one'), { role: 'assistant', content: 'x' }, user('two')] }))).toEqual({
      kind: 'text',
      text: 'two',
    });
  });
});

describe('testProvider', () => {
  const ctx = { apiKey: '', baseUrl: '', signal: new AbortController().signal, timeoutMs: 1000, logger: pino({ level: 'silent' }) };

  async function chunksOf(request: ChatRequest): Promise<ChatChunk[]> {
    const chunks: ChatChunk[] = [];
    for await (const batch of testProvider.chatStream(request, ctx)) chunks.push(...batch);
    return chunks;
  }

  it('answers a tool call whole, finish_reason tool_calls', async () => {
    const result = await testProvider.chat(echo({ tools: [WEATHER] }), ctx);
    expect(result.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { role: 'assistant', content: null, tool_calls: [{ function: { name: 'get_weather' } }] },
    });
  });

  it('streams a tool call as OpenAI does: id and name first, then the arguments in pieces, then usage', async () => {
    const chunks = await chunksOf(echo({ tools: [WEATHER], messages: [user('A long question about the weather in Paris next week')] }));
    const deltas = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    expect(deltas[0]).toEqual({ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(deltas.length).toBeGreaterThan(2);
    expect(JSON.parse(deltas.map((d) => d.function?.arguments ?? '').join(''))).toEqual({
      city: 'A long question about the weather in Paris next week',
      days: 1,
    });
    const last = chunks[chunks.length - 1];
    expect(last?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(last?.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('answers n choices, whole and streamed, each with its index', async () => {
    const one = await testProvider.chat(echo({}), ctx);
    const three = await testProvider.chat(echo({ n: 3 }), ctx);
    expect(three.choices.map((c) => [c.index, c.message.content])).toEqual([0, 1, 2].map((i) => [i, 'Weather in Paris']));
    expect(three.usage.completion_tokens).toBe(3 * one.usage.completion_tokens);
    const chunks = await chunksOf(echo({ n: 2 }));
    const textOf = (index: number) => chunks.flatMap((chunk) => chunk.choices.filter((c) => c.index === index).map((c) => c.delta.content ?? '')).join('');
    expect([textOf(0), textOf(1)]).toEqual(['Weather in Paris', 'Weather in Paris']);
    expect(chunks[chunks.length - 1]?.choices.map((c) => [c.index, c.finish_reason])).toEqual([
      [0, 'stop'],
      [1, 'stop'],
    ]);
  });

  it('embeds with the test-embedding namespace only', async () => {
    await expect(testProvider.embed?.({ model: 'embedding', inputs: ['a', 'b'], dimensions: 16 }, ctx)).resolves.toMatchObject({
      vectors: [expect.any(Array), expect.any(Array)],
    });
    await expect(testProvider.embed?.({ model: 'other', inputs: ['a'] }, ctx)).rejects.toMatchObject({ kind: 'bad_request' });
  });

  it('keeps test-fixed fixed, tools or not', async () => {
    const result = await testProvider.chat({ ...echo({ tools: [WEATHER] }), model: 'fixed' }, ctx);
    expect(result.choices[0]?.message.tool_calls).toBeUndefined();
  });
});

describe("space-search's embeddings with EMBEDDINGS_MODEL=test-embedding", () => {
  it('computes the test vectors in the worker, without calling the client', async () => {
    const config = readSpaceSearchConfig({ EMBEDDINGS_MODEL: 'test-embedding' }).embeddings;
    if (!config) throw new Error('expected embeddings');
    const client = () => Promise.reject(new Error('no network'));
    const result = await embed(client, config, { inputs: ['roses', 'invoices'], signal: new AbortController().signal, timeoutMs: 1000 });
    expect(result.vectors).toEqual([hashedEmbedding('roses'), hashedEmbedding('invoices')]);
    expect(result.promptTokens).toBe(4);
  });
});
