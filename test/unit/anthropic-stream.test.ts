import pino from 'pino';
import type { ChatChunk } from '../../src/domain/chat';
import { AnthropicStreamTranslator } from '../../src/providers/anthropic/stream';
import { Deadline } from '../../src/net/deadline';
import { translateSse } from '../../src/providers/http/sse';
import { UpstreamError } from '../../src/errors/upstream-error';
import type { ProviderContext } from '../../src/providers/types';
import { upstreamResponse } from '../helpers/upstream-response';

const ctx: ProviderContext = { apiKey: 'k', baseUrl: 'http://x', signal: new AbortController().signal, timeoutMs: 5000, logger: pino({ level: 'silent' }) };

/** Raw SSE text through the providers' stream loop and the translator, as the provider does it. */
async function translate(raw: string, received: ChatChunk[] = []): Promise<ChatChunk[]> {
  const upstream = { response: upstreamResponse(raw), deadline: new Deadline(ctx.signal, { idleMs: ctx.timeoutMs }) };
  for await (const batch of translateSse({ provider: 'anthropic', ctx, open: async () => upstream }, new AnthropicStreamTranslator())) received.push(...batch);
  return received;
}

const sse = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const start = (usage: object = { input_tokens: 25, output_tokens: 1 }) =>
  sse('message_start', {
    message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-x', stop_reason: null, stop_sequence: null, usage },
  });
const text = (index: number, value: string) => sse('content_block_delta', { index, delta: { type: 'text_delta', text: value } });
const json = (index: number, partial: string) => sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } });
const end = (stopReason: string, outputTokens: number) =>
  sse('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } }) + sse('message_stop', {});

const contentOf = (chunks: ChatChunk[]) => chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? '')).join('');
const finishesOf = (chunks: ChatChunk[]) => chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean);

describe('AnthropicStreamTranslator', () => {
  it('streams text, skips pings and ends with the finish reason and usage', async () => {
    const raw =
      start() +
      sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      sse('ping', {}) +
      text(0, 'Hello') +
      text(0, ' world') +
      sse('content_block_stop', { index: 0 }) +
      end('end_turn', 15);
    const chunks = await translate(raw);
    expect(chunks[0]).toEqual({ choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] });
    expect(contentOf(chunks)).toBe('Hello world');
    expect(chunks.at(-1)).toEqual({
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      usage: { prompt_tokens: 25, completion_tokens: 15, total_tokens: 40 },
    });
  });

  it('streams tool_use blocks as tool call deltas with ids passed through and indexes from 0', async () => {
    const raw =
      start() +
      sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      text(0, 'Checking both.') +
      sse('content_block_stop', { index: 0 }) +
      sse('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_A', name: 'weather', input: {} } }) +
      json(1, '') +
      json(1, '{"city": "Pa') +
      json(1, 'ris"}') +
      sse('content_block_stop', { index: 1 }) +
      sse('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'toolu_B', name: 'now', input: {} } }) +
      sse('content_block_stop', { index: 2 }) +
      end('tool_use', 40);
    const chunks = await translate(raw);
    const deltas = chunks.flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    expect(deltas).toEqual([
      { index: 0, id: 'toolu_A', type: 'function', function: { name: 'weather', arguments: '' } },
      { index: 0, function: { arguments: '{"city": "Pa' } },
      { index: 0, function: { arguments: 'ris"}' } },
      { index: 1, id: 'toolu_B', type: 'function', function: { name: 'now', arguments: '' } },
      { index: 1, function: { arguments: '{}' } },
    ]);
    expect(contentOf(chunks)).toBe('Checking both.');
    expect(finishesOf(chunks)).toEqual(['tool_calls']);
  });

  it('adds cache tokens to the prompt and takes the last cumulative message_delta counts', async () => {
    const usage = { input_tokens: 3, cache_creation_input_tokens: 10, cache_read_input_tokens: 100, output_tokens: 1 };
    const raw =
      start(usage) +
      sse('message_delta', { delta: { stop_reason: null }, usage: { output_tokens: 4 } }) +
      sse('message_delta', { delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 9 } }) +
      sse('message_stop', {});
    const chunks = await translate(raw);
    expect(chunks.at(-1)).toEqual({
      choices: [{ index: 0, delta: {}, finish_reason: 'length' }],
      usage: { prompt_tokens: 113, completion_tokens: 9, total_tokens: 122 },
    });
  });

  it('ignores thinking deltas and unknown event types', async () => {
    const raw =
      start() +
      sse('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }) +
      sse('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'secret' } }) +
      sse('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }) +
      sse('content_block_stop', { index: 0 }) +
      sse('brand_new_event', { whatever: true }) +
      sse('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }) +
      text(1, 'Done') +
      end('end_turn', 2);
    expect(contentOf(await translate(raw))).toBe('Done');
  });

  it('throws a retryable error for an overloaded_error event, after relaying what came before', async () => {
    const raw =
      start() +
      sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      text(0, 'Hel') +
      'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n';
    const received: ChatChunk[] = [];
    const error = await translate(raw, received).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'server_error', retryable: true, message: 'Overloaded (overloaded_error)' });
    expect(contentOf(received)).toBe('Hel');
  });

  it('throws a non-retryable error for an invalid_request_error event', async () => {
    const raw = start() + sse('error', { error: { type: 'invalid_request_error', message: 'Bad' } });
    await expect(translate(raw)).rejects.toMatchObject({ kind: 'bad_request', retryable: false });
  });

  it('throws stream_cut for a stream that ends without message_stop, even after message_delta', async () => {
    const raw =
      start() +
      sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      text(0, 'Hi') +
      sse('content_block_stop', { index: 0 }) +
      sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } });
    const received: ChatChunk[] = [];
    await expect(translate(raw, received)).rejects.toMatchObject({ kind: 'stream_cut', retryable: true });
    expect(contentOf(received)).toBe('Hi');
    expect(received.some((chunk) => chunk.usage)).toBe(false);
  });

  it('throws invalid_response for data that is not JSON', async () => {
    await expect(translate(start() + 'event: content_block_delta\ndata: {oops\n\n')).rejects.toMatchObject({ kind: 'invalid_response' });
  });

  it('ignores anything after message_stop', () => {
    const translator = new AnthropicStreamTranslator();
    translator.push({ event: 'message_stop', data: '{"type":"message_stop"}' });
    expect(translator.done).toBe(true);
    expect(
      translator.push({ event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"late"}}' }),
    ).toEqual([]);
    expect(() => translator.finish()).not.toThrow();
  });
});
