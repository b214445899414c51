import type { ChatRequest } from '../../src/domain/chat';
import { UpstreamError } from '../../src/errors/upstream-error';
import { SKIP_THOUGHT_SIGNATURE, imagePart } from '../../src/providers/gemini/contents';
import { geminiUrl, toGeminiBody, toGeminiCall } from '../../src/providers/gemini/request';

const base = (extra: Partial<ChatRequest>): ChatRequest => ({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], ...extra });

describe('gemini request: URL and headers', () => {
  it.each([
    {
      baseUrl: 'https://generativelanguage.googleapis.com',
      model: 'gemini-2.5-flash',
      stream: false,
      url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
    },
    {
      baseUrl: 'https://generativelanguage.googleapis.com/',
      model: 'gemini-2.5-flash',
      stream: true,
      url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    },
    { baseUrl: 'http://sim/gemini', model: 'models/gemini-2.0-flash', stream: false, url: 'http://sim/gemini/v1beta/models/gemini-2.0-flash:generateContent' },
  ])('$baseUrl + $model (stream $stream)', ({ baseUrl, model, stream, url }) => {
    expect(geminiUrl(baseUrl, model, stream)).toBe(url);
  });

  it('puts the key in x-goog-api-key and not in the URL', () => {
    const call = toGeminiCall(base({}), { baseUrl: 'https://g', apiKey: 'secret', stream: false });
    expect(call.headers).toEqual({ 'x-goog-api-key': 'secret' });
    expect(call.url).not.toContain('secret');
  });
});

describe('gemini request: messages → contents', () => {
  it('gathers system and developer messages into systemInstruction and maps roles', () => {
    const body = toGeminiBody(
      base({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
          { role: 'user', content: 'hello' },
          { role: 'assistant', content: 'hi!' },
          { role: 'user', content: 'weather?' },
        ],
      }),
    );
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Use metric units.' }] });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'hello' }] },
      { role: 'model', parts: [{ text: 'hi!' }] },
      { role: 'user', parts: [{ text: 'weather?' }] },
    ]);
  });

  it('maps text and image parts: data URLs inline, http URLs by reference with a guessed MIME type', () => {
    const body = toGeminiBody(
      base({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.webp?size=large' } },
              { type: 'image_url', image_url: { url: 'https://example.com/photo' } },
            ],
          },
        ],
      }),
    );
    expect(body.contents[0]?.parts).toEqual([
      { text: 'What is this?' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.webp?size=large' } },
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/photo' } },
    ]);
  });

  it('base64-encodes a data URL that is not base64', () => {
    expect(imagePart('data:image/svg+xml,%3Csvg%2F%3E')).toEqual({ inlineData: { mimeType: 'image/svg+xml', data: Buffer.from('<svg/>').toString('base64') } });
  });

  it('turns tool calls into functionCall parts and tool results into functionResponse parts named after the call', () => {
    const body = toGeminiBody(
      base({
        messages: [
          { role: 'user', content: 'weather in Oslo and Rome' },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
              { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_b', content: '12:00' },
          { role: 'tool', tool_call_id: 'call_a', content: '{"temp":3}' },
          { role: 'user', content: 'thanks' },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'weather in Oslo and Rome' }] },
      {
        role: 'model',
        parts: [
          { text: 'Checking.' },
          { functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: SKIP_THOUGHT_SIGNATURE },
          { functionCall: { name: 'get_time', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_time', response: { output: '12:00' } } },
          { functionResponse: { name: 'get_weather', response: { temp: 3 } } },
          { text: 'thanks' },
        ],
      },
    ]);
  });

  it('wraps arguments that are not a JSON object', () => {
    const body = toGeminiBody(
      base({
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: 'not json' } }] },
        ],
      }),
    );
    expect(body.contents[1]?.parts[0]?.functionCall).toEqual({ name: 'f', args: { input: 'not json' } });
  });

  it('merges consecutive turns of one role and drops empty messages', () => {
    const body = toGeminiBody(
      base({
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: '' },
          { role: 'user', content: 'b' },
          { role: 'assistant', content: null },
          { role: 'assistant', content: 'c' },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
      { role: 'model', parts: [{ text: 'c' }] },
    ]);
  });

  it('refuses a tool result whose call it cannot find (Gemini needs the name)', () => {
    const request = base({
      messages: [
        { role: 'user', content: 'x' },
        { role: 'tool', tool_call_id: 'nowhere', content: 'r' },
      ],
    });
    expect(() => toGeminiBody(request)).toThrow(UpstreamError);
    expect(() => toGeminiBody(request)).toThrow(expect.objectContaining({ kind: 'bad_request' }));
  });
});

describe('gemini request: tools and tool_choice', () => {
  const tools: ChatRequest['tools'] = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Weather',
        parameters: { type: 'object', additionalProperties: false, properties: { city: { type: 'string' } }, required: ['city'] },
        strict: true,
      },
    },
    { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } },
  ];

  it('declares functions with cleaned parameters and leaves empty ones out', () => {
    expect(toGeminiBody(base({ tools })).tools).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
          { name: 'now' },
        ],
      },
    ]);
  });

  it.each([
    [undefined, undefined],
    ['auto', { functionCallingConfig: { mode: 'AUTO' } }],
    ['none', { functionCallingConfig: { mode: 'NONE' } }],
    ['required', { functionCallingConfig: { mode: 'ANY' } }],
    [{ type: 'function', function: { name: 'now' } }, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['now'] } }],
  ] as [ChatRequest['tool_choice'], unknown][])('tool_choice %j → %j', (choice, config) => {
    expect(toGeminiBody(base({ tools, tool_choice: choice })).toolConfig).toEqual(config);
  });

  it('sends no toolConfig without tools', () => {
    expect(toGeminiBody(base({ tool_choice: 'none' })).toolConfig).toBeUndefined();
  });
});

describe('gemini request: generationConfig', () => {
  it.each([
    [{}, undefined],
    [{ max_tokens: 100 }, { maxOutputTokens: 100 }],
    [
      { temperature: 0.2, top_p: 0.9 },
      { temperature: 0.2, topP: 0.9 },
    ],
    [{ stop: ['END'] }, { stopSequences: ['END'] }],
    [{ stop: [] }, undefined],
    [
      { n: 2, presence_penalty: 0.5, frequency_penalty: -0.5, seed: 7 },
      { candidateCount: 2, presencePenalty: 0.5, frequencyPenalty: -0.5, seed: 7 },
    ],
    [{ logit_bias: { '42': 1 }, user: 'u1' }, undefined],
    [{ response_format: { type: 'text' } }, undefined],
    [{ response_format: { type: 'json_object' } }, { responseMimeType: 'application/json' }],
    [{ response_format: { type: 'json_schema', json_schema: { name: 'x' } } }, { responseMimeType: 'application/json' }],
    [
      {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'x', strict: true, schema: { type: 'object', additionalProperties: false, properties: { a: { type: 'integer' } } } },
        },
      },
      { responseMimeType: 'application/json', responseSchema: { type: 'object', properties: { a: { type: 'integer' } } } },
    ],
  ] as [Partial<ChatRequest>, unknown][])('%j → %j', (extra, config) => {
    expect(toGeminiBody(base(extra)).generationConfig).toEqual(config);
  });
});
