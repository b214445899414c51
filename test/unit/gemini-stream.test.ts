import type { ChatChunk } from '../../src/domain/chat';
import { UpstreamError } from '../../src/errors/upstream-error';
import { GeminiStreamTranslator } from '../../src/providers/gemini/stream';

/** Splits raw SSE text into `data:` payloads, as readSse would. */
function dataOf(sse: string): string[] {
  return sse
    .replace(/\r\n/g, '\n')
    .split('\n\n')
    .map((block) => block.replace(/^data: ?/, '').trim())
    .filter(Boolean);
}

function run(sse: string): ChatChunk[] {
  const state = new GeminiStreamTranslator();
  const chunks = dataOf(sse).flatMap((data) => state.push({ event: undefined, data }));
  return [...chunks, ...state.finish()];
}

const TEXT_STREAM = [
  'data: {"candidates": [{"content": {"parts": [{"text": "Hel"}],"role": "model"}}],"usageMetadata": {"promptTokenCount": 4,"totalTokenCount": 4},"modelVersion": "gemini-2.5-flash","responseId": "r1"}',
  'data: {"candidates": [{"content": {"parts": [{"text": "lo"}],"role": "model"}}],"usageMetadata": {"promptTokenCount": 4,"totalTokenCount": 4},"modelVersion": "gemini-2.5-flash","responseId": "r1"}',
  'data: {"candidates": [{"content": {"parts": [{"text": "","thoughtSignature": "AY89"}],"role": "model"},"finishReason": "STOP"}],"usageMetadata": {"promptTokenCount": 4,"candidatesTokenCount": 2,"thoughtsTokenCount": 3,"totalTokenCount": 9},"modelVersion": "gemini-2.5-flash","responseId": "r1"}',
].join('\r\n\r\n');

describe('gemini stream state machine', () => {
  it('turns text chunks into content deltas, the finish into a finish chunk, and ends with usage', () => {
    expect(run(TEXT_STREAM)).toEqual([
      { choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      { choices: [], usage: { prompt_tokens: 4, completion_tokens: 5, total_tokens: 9, reasoning_tokens: 3 } },
    ]);
  });

  it('sends each functionCall part as one complete tool-call delta and finishes with tool_calls', () => {
    const sse = [
      'data: {"candidates":[{"content":{"parts":[{"text":"Let me check."}],"role":"model"}}],"responseId":"r2"}',
      'data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"city":"Oslo"}},"thoughtSignature":"c2ln"},{"functionCall":{"name":"now","args":{}}}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":12,"totalTokenCount":20},"responseId":"r2"}',
    ].join('\n\n');
    const chunks = run(sse);
    expect(chunks[0]).toEqual({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Let me check.' }, finish_reason: null }] });
    const calls = chunks[1]?.choices[0]?.delta.tool_calls ?? [];
    expect(calls).toEqual([
      { index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      { index: 1, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'now', arguments: '{}' } },
    ]);
    expect(calls[0]?.id).not.toBe(calls[1]?.id);
    expect(chunks[1]?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toEqual({ choices: [], usage: { prompt_tokens: 8, completion_tokens: 12, total_tokens: 20 } });
  });

  it('counts tool calls across chunks and keeps the tool_calls finish when the call came earlier', () => {
    const sse = [
      'data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"a"}}]}}]}',
      'data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"b"}}]}}]}',
      'data: {"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}]}',
    ].join('\n\n');
    const chunks = run(sse);
    expect(chunks.flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? [])).map((d) => [d.index, d.function?.name])).toEqual([
      [0, 'a'],
      [1, 'b'],
    ]);
    expect(chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['tool_calls']);
  });

  it('maps MAX_TOKENS and safety finishes', () => {
    const finishes = (reason: string) =>
      run(`data: {"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"${reason}"}]}`)[0]?.choices[0]?.finish_reason;
    expect(finishes('MAX_TOKENS')).toBe('length');
    expect(finishes('SAFETY')).toBe('content_filter');
  });

  it('skips thought summaries and events with nothing new', () => {
    const sse = [
      'data: {"candidates":[{"content":{"parts":[{"text":"pondering","thought":true}]}}]}',
      'data: {"usageMetadata":{"promptTokenCount":1}}',
      'data: {"candidates":[{"content":{"parts":[{"text":"ok"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1}}',
    ].join('\n\n');
    expect(run(sse)).toEqual([
      { choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] },
      { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
    ]);
  });

  it('waits for every candidate to finish', () => {
    const state = new GeminiStreamTranslator();
    state.push({
      event: undefined,
      data: '{"candidates":[{"index":0,"content":{"parts":[{"text":"a"}]},"finishReason":"STOP"},{"index":1,"content":{"parts":[{"text":"b"}]}}]}',
    });
    expect(() => state.finish()).toThrow(expect.objectContaining({ kind: 'stream_cut' }));
    expect(state.push({ event: undefined, data: '{"candidates":[{"index":1,"content":{"parts":[{"text":"c"}]},"finishReason":"STOP"}]}' })).toEqual([
      { choices: [{ index: 1, delta: { content: 'c' }, finish_reason: 'stop' }] },
    ]);
    expect(state.finish()).toEqual([{ choices: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } }]);
  });

  it('throws stream_cut for a stream that ends before any finishReason', () => {
    const state = new GeminiStreamTranslator();
    const cut = dataOf(TEXT_STREAM).slice(0, 2);
    const chunks = cut.flatMap((data) => state.push({ event: undefined, data }));
    expect(chunks.map((c) => c.choices[0]?.delta.content).join('')).toBe('Hello');
    expect(() => state.finish()).toThrow(UpstreamError);
    expect(() => state.finish()).toThrow(expect.objectContaining({ kind: 'stream_cut', retryable: true }));
  });

  it('throws stream_cut for an empty stream', () => {
    expect(() => new GeminiStreamTranslator().finish()).toThrow(expect.objectContaining({ kind: 'stream_cut' }));
  });

  it('throws the kind of an error event sent inside the stream', () => {
    const state = new GeminiStreamTranslator();
    expect(() => state.push({ event: undefined, data: '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}' })).toThrow(
      expect.objectContaining({ kind: 'server_error', status: 503, message: 'The model is overloaded.' }),
    );
    expect(() => state.push({ event: undefined, data: '{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}' })).toThrow(
      expect.objectContaining({ kind: 'rate_limited' }),
    );
  });

  it('throws bad_request for a blocked prompt and invalid_response for garbage', () => {
    expect(() =>
      new GeminiStreamTranslator().push({ event: undefined, data: '{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":3}}' }),
    ).toThrow(expect.objectContaining({ kind: 'bad_request', message: expect.stringContaining('SAFETY') }));
    expect(() => new GeminiStreamTranslator().push({ event: undefined, data: 'not json' })).toThrow(expect.objectContaining({ kind: 'invalid_response' }));
  });
});
