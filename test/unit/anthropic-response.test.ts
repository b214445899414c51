import { anthropicErrorMessage, streamError } from '../../src/providers/anthropic/errors';
import { finishReasonFor, toChatResult, usageOf } from '../../src/providers/anthropic/response';
import { UpstreamError } from '../../src/errors/upstream-error';

const message = (extra: Record<string, unknown>) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-x-20250101',
  content: [{ type: 'text', text: 'Hi' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 3 },
  ...extra,
});

describe('toChatResult', () => {
  it('maps a text answer with its id, model and usage', () => {
    expect(toChatResult(message({}))).toEqual({
      upstreamId: 'msg_1',
      model: 'claude-x-20250101',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    });
  });

  it('maps tool_use blocks to tool calls, keeping the block id, and skips thinking blocks', () => {
    const result = toChatResult(
      message({
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'lookup', input: { q: 'x' } },
          { type: 'tool_use', id: 'toolu_01B', name: 'now', input: {} },
        ],
        stop_reason: 'tool_use',
      }),
    );
    expect(result.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          { id: 'toolu_01A', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
          { id: 'toolu_01B', type: 'function', function: { name: 'now', arguments: '{}' } },
        ],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('gives null content when there are only tool calls', () => {
    const result = toChatResult(message({ content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }], stop_reason: 'tool_use' }));
    expect(result.choices[0]?.message.content).toBeNull();
  });

  it('counts cache writes and reads as prompt tokens', () => {
    const usage = { input_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 2000, output_tokens: 7 };
    expect(toChatResult(message({ usage })).usage).toEqual({ prompt_tokens: 2105, completion_tokens: 7, total_tokens: 2112 });
    expect(usageOf({ input_tokens: 4, cache_read_input_tokens: null, output_tokens: 1 })).toEqual({ prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 });
  });

  it('refuses a body that is not a message', () => {
    expect(() => toChatResult({ type: 'error', error: { type: 'api_error', message: 'x' } })).toThrow(UpstreamError);
    expect(() => toChatResult(null)).toThrow(/not a message/);
  });
});

describe('finishReasonFor', () => {
  const table: [string | null, string | null][] = [
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['something_new', 'stop'],
    [null, null],
  ];
  it.each(table)('%s → %s', (reason, expected) => {
    expect(finishReasonFor(reason)).toBe(expected);
  });
});

describe('Anthropic error bodies', () => {
  it('reads the message of an HTTP error body', () => {
    const body = JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' }, request_id: 'req_1' });
    expect(anthropicErrorMessage(body)).toBe('Slow down');
    expect(anthropicErrorMessage('<html>bad gateway</html>')).toBeUndefined();
  });

  const kinds: [string, string][] = [
    ['overloaded_error', 'server_error'],
    ['api_error', 'server_error'],
    ['rate_limit_error', 'rate_limited'],
    ['invalid_request_error', 'bad_request'],
    ['authentication_error', 'authentication'],
    ['permission_error', 'permission'],
    ['not_found_error', 'not_found'],
    ['timeout_error', 'timeout'],
    ['brand_new_error', 'server_error'],
  ];
  it.each(kinds)('classifies a stream error of type %s as %s', (type, kind) => {
    const error = streamError(JSON.stringify({ type: 'error', error: { type, message: 'Boom' } }));
    expect(error).toMatchObject({ kind, provider: 'anthropic', message: `Boom (${type})` });
  });
});
