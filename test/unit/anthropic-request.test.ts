import type { ChatMessage, ChatRequest } from '../../src/domain/chat';
import { UpstreamError } from '../../src/errors/upstream-error';
import { toAnthropicConversation } from '../../src/providers/anthropic/messages';
import { DEFAULT_MAX_TOKENS, messagesHeaders, messagesUrl, toMessagesRequest } from '../../src/providers/anthropic/request';
import type { MessagesRequest } from '../../src/providers/anthropic/wire';

const user = (content: ChatMessage['content']): ChatMessage => ({ role: 'user', content });
const base: ChatRequest = { model: 'claude-x', messages: [user('hi')] };
const body = (extra: Partial<ChatRequest>, stream = false) => toMessagesRequest({ ...base, ...extra }, { stream });
const call = (id: string, name: string, args: string) => ({ id, type: 'function' as const, function: { name, arguments: args } });

describe('toMessagesRequest: parameters', () => {
  const cases: [string, Partial<ChatRequest>, Partial<MessagesRequest>][] = [
    ['defaults max_tokens, which Anthropic requires', {}, { max_tokens: DEFAULT_MAX_TOKENS }],
    ['keeps max_tokens', { max_tokens: 12 }, { max_tokens: 12 }],
    ['keeps temperature within 0..1', { temperature: 0.3 }, { temperature: 0.3 }],
    ['clamps temperature above 1', { temperature: 1.8 }, { temperature: 1 }],
    ['keeps top_p', { top_p: 0.5 }, { top_p: 0.5 }],
    ['maps stop to stop_sequences, dropping whitespace-only ones', { stop: ['END', ' '] }, { stop_sequences: ['END'] }],
    ['maps user to metadata.user_id', { user: 'u-1' }, { metadata: { user_id: 'u-1' } }],
  ];
  it.each(cases)('%s', (_name, extra, expected) => {
    expect(body(extra)).toMatchObject(expected);
  });

  it('drops what the wire cannot express: n, penalties, seed, logit_bias, extra, an empty stop list', () => {
    const mapped = body({ n: 2, presence_penalty: 1, frequency_penalty: 1, seed: 7, logit_bias: { '1': 2 }, extra: { reasoning_effort: 'low' }, stop: [] });
    expect(mapped).toEqual({ model: 'claude-x', max_tokens: DEFAULT_MAX_TOKENS, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
  });

  it('asks for a stream only when streaming', () => {
    expect(body({}, true).stream).toBe(true);
    expect(body({})).not.toHaveProperty('stream');
  });

  it('builds the URL from the host root and sends the key and version headers', () => {
    expect(messagesUrl('https://api.anthropic.com/')).toBe('https://api.anthropic.com/v1/messages');
    expect(messagesHeaders('sk-ant')).toEqual({ 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01' });
  });
});

describe('toMessagesRequest: tools and tool_choice', () => {
  const tools: ChatRequest['tools'] = [
    { type: 'function', function: { name: 'lookup', description: 'Looks up', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
    { type: 'function', function: { name: 'now' } },
  ];

  it('maps tools to name, description and input_schema (an empty object schema when none)', () => {
    expect(body({ tools }).tools).toEqual([
      { name: 'lookup', description: 'Looks up', input_schema: { type: 'object', properties: { q: { type: 'string' } } } },
      { name: 'now', input_schema: { type: 'object', properties: {} } },
    ]);
  });

  const choices: [ChatRequest['tool_choice'], MessagesRequest['tool_choice']][] = [
    ['auto', { type: 'auto' }],
    ['required', { type: 'any' }],
    ['none', { type: 'none' }],
    [
      { type: 'function', function: { name: 'now' } },
      { type: 'tool', name: 'now' },
    ],
  ];
  it.each(choices)('maps tool_choice %j', (choice, expected) => {
    expect(body({ tools, tool_choice: choice }).tool_choice).toEqual(expected);
  });

  it('sends no tool_choice without tools', () => {
    expect(body({ tool_choice: 'required' })).not.toHaveProperty('tool_choice');
  });
});

describe('toMessagesRequest: JSON mode as a system instruction', () => {
  it('adds nothing for text', () => {
    expect(body({ response_format: { type: 'text' } })).not.toHaveProperty('system');
  });

  it('appends the JSON instruction after the caller’s system prompt', () => {
    const mapped = body({ messages: [{ role: 'system', content: 'Be brief.' }, user('hi')], response_format: { type: 'json_object' } });
    expect(mapped.system).toMatch(/^Be brief\.\n\nRespond with a single valid JSON object\./);
  });

  it('includes the schema of json_schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
    const mapped = body({ response_format: { type: 'json_schema', json_schema: { name: 'thing', description: 'a thing', schema } } });
    expect(mapped.system).toContain('"thing" (a thing)');
    expect(mapped.system).toContain(JSON.stringify(schema));
  });
});

describe('toAnthropicConversation', () => {
  it('lifts system and developer messages, in order, into one system text', () => {
    const result = toAnthropicConversation([{ role: 'system', content: 'One.' }, user('hi'), { role: 'developer', content: [{ type: 'text', text: 'Two.' }] }]);
    expect(result.system).toBe('One.\n\nTwo.');
    expect(result.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });

  it('maps text and image parts: data URLs to base64 sources, http URLs to url sources', () => {
    const result = toAnthropicConversation([
      user([
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
        { type: 'image_url', image_url: { url: 'data:image/svg+xml,%3Csvg%2F%3E' } },
      ]),
    ]);
    expect(result.messages[0]?.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/svg+xml', data: Buffer.from('<svg/>').toString('base64') } },
    ]);
  });

  it('turns tool calls into tool_use blocks and merges consecutive tool results into one user turn', () => {
    const result = toAnthropicConversation([
      user('Weather in Paris and Rome?'),
      { role: 'assistant', content: 'Checking.', tool_calls: [call('toolu_1', 'weather', '{"city":"Paris"}'), call('toolu_2', 'weather', '')] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny' },
      { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: 'Rain' }] },
      user('Thanks'),
    ]);
    expect(result.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'Rain' },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
  });

  it('merges consecutive same-role messages and drops empty ones', () => {
    const result = toAnthropicConversation([user('a'), user(''), user('b'), { role: 'assistant', content: null }, { role: 'assistant', content: 'c' }]);
    expect(result.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'c' }] },
    ]);
    expect(result.system).toBeUndefined();
  });

  it('refuses tool arguments that are not a JSON object', () => {
    const messages: ChatMessage[] = [user('x'), { role: 'assistant', content: null, tool_calls: [call('toolu_9', 'f', '[1,2]')] }];
    expect(() => toAnthropicConversation(messages)).toThrow(UpstreamError);
    expect(() => toAnthropicConversation(messages)).toThrow(/toolu_9/);
  });
});
