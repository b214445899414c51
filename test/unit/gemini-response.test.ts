import { finishReasonOf, fromGeminiResponse, toolCallId, usageOf } from '../../src/providers/gemini/response';
import type { GeminiResponse } from '../../src/providers/gemini/wire';

describe('gemini response → ChatResult', () => {
  it('maps a text answer, the model version, the response id and usage', () => {
    const response: GeminiResponse = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'Hello' }, { text: ' there' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7 },
      modelVersion: 'gemini-2.5-flash-001',
      responseId: 'r1',
    };
    expect(fromGeminiResponse(response, 'gemini-2.5-flash')).toEqual({
      upstreamId: 'r1',
      model: 'gemini-2.5-flash-001',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    });
  });

  it('maps functionCall parts to tool calls with made-up stable ids and finish tool_calls', () => {
    const response: GeminiResponse = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'sig' }, { functionCall: { name: 'now' } }],
          },
          finishReason: 'STOP',
        },
      ],
      responseId: 'r2',
    };
    const result = fromGeminiResponse(response, 'm');
    const calls = result.choices[0]?.message.tool_calls ?? [];
    expect(result.choices[0]?.message.content).toBeNull();
    expect(result.choices[0]?.finish_reason).toBe('tool_calls');
    expect(calls.map((c) => c.function)).toEqual([
      { name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { name: 'now', arguments: '{}' },
    ]);
    expect(calls[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(calls[0]?.id).not.toBe(calls[1]?.id);
    expect(fromGeminiResponse(response, 'm').choices[0]?.message.tool_calls?.[0]?.id).toBe(calls[0]?.id);
    expect(result.model).toBe('m');
  });

  it('keeps the id Gemini gives a call', () => {
    expect(toolCallId({ id: 'gemini-id' }, { responseId: 'r', candidate: 0, index: 0 })).toBe('gemini-id');
    expect(toolCallId({}, { responseId: 'r', candidate: 0, index: 0 })).not.toBe(toolCallId({}, { responseId: 'other', candidate: 0, index: 0 }));
  });

  it('leaves thought summaries out of the content', () => {
    const response: GeminiResponse = {
      candidates: [{ content: { parts: [{ text: 'thinking...', thought: true }, { text: 'Answer' }] }, finishReason: 'STOP' }],
    };
    expect(fromGeminiResponse(response, 'm').choices[0]?.message.content).toBe('Answer');
  });

  it('maps several candidates to choices in index order', () => {
    const response: GeminiResponse = {
      candidates: [
        { index: 1, content: { parts: [{ text: 'B' }] }, finishReason: 'MAX_TOKENS' },
        { index: 0, content: { parts: [{ text: 'A' }] }, finishReason: 'STOP' },
      ],
    };
    expect(fromGeminiResponse(response, 'm').choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, 'A', 'stop'],
      [1, 'B', 'length'],
    ]);
  });

  it('answers a candidate stopped for safety with no content and finish content_filter', () => {
    const response: GeminiResponse = { candidates: [{ finishReason: 'SAFETY' }], usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 } };
    expect(fromGeminiResponse(response, 'm').choices[0]).toEqual({ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter' });
  });

  it('throws bad_request naming the reason when the prompt was blocked', () => {
    const response: GeminiResponse = { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 4 } };
    expect(() => fromGeminiResponse(response, 'm')).toThrow(
      expect.objectContaining({ kind: 'bad_request', message: expect.stringContaining('PROHIBITED_CONTENT') }),
    );
  });

  it('throws invalid_response for an answer without candidates', () => {
    expect(() => fromGeminiResponse({}, 'm')).toThrow(expect.objectContaining({ kind: 'invalid_response' }));
  });
});

describe('gemini finish reasons', () => {
  it.each([
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool_calls'],
    ['MAX_TOKENS', false, 'length'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', false, 'content_filter'],
    ['RECITATION', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['PROHIBITED_CONTENT', false, 'content_filter'],
    ['SPII', false, 'content_filter'],
    ['IMAGE_SAFETY', false, 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', false, 'stop'],
    ['OTHER', false, 'stop'],
    [undefined, false, null],
  ])('%s (tool calls: %s) → %s', (reason, calledTools, finish) => {
    expect(finishReasonOf(reason, calledTools)).toBe(finish);
  });
});

describe('gemini usage', () => {
  it.each([
    [
      { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    ],
    [
      { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 20, totalTokenCount: 35 },
      { prompt_tokens: 10, completion_tokens: 25, total_tokens: 35, reasoning_tokens: 20 },
    ],
    [
      { promptTokenCount: 10, totalTokenCount: 10 },
      { prompt_tokens: 10, completion_tokens: 0, total_tokens: 10 },
    ],
    [undefined, { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }],
  ])('%j → %j', (metadata, usage) => {
    expect(usageOf(metadata)).toEqual(usage);
  });
});
