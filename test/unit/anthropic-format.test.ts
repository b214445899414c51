import type { WireSink } from '../../src/formats/wire-sink';
import type { CompletionAnswer, CompletionResult } from '../../src/domain/completion';
import { finishedOf, testResult } from '../helpers/completion-result';
import { anthropicMessageBody } from '../../src/http/formats/anthropic-message';
import { chatRequestOf, misplacedBlock } from '../../src/http/formats/anthropic-request';
import { anthropicMessagesSink } from '../../src/http/formats/anthropic-stream';
import { messagesRequestSchema } from '../../src/schemas/anthropic-messages';

/** The Messages API formatters, without a network: request in, events and bodies out. */

const REQUEST_ID = '00000000-0000-4000-8000-000000000001';

function result(answer: Partial<CompletionAnswer> = {}): CompletionResult {
  return testResult({ answer: { requestId: REQUEST_ID, ...answer } });
}

/** A wire sink that keeps what it was given. */
function recorder(): WireSink & { events: Record<string, unknown>[]; comments: string[]; ended: boolean; failures: unknown[] } {
  const events: Record<string, unknown>[] = [];
  const comments: string[] = [];
  const failures: unknown[] = [];
  const sink = {
    events,
    comments,
    failures,
    ended: false,
    chunk: (data: string) => void events.push(JSON.parse(data) as Record<string, unknown>),
    comment: (text: string) => void comments.push(text),
    done: () => {
      sink.ended = true;
    },
    error: (failure: unknown) => void failures.push(failure),
  };
  return sink;
}

describe('anthropicMessagesSink (stream)', () => {
  it('opens and closes a block as text and tool calls alternate, and ends with message_delta and message_stop', () => {
    const wire = recorder();
    const sink = anthropicMessagesSink(wire, { requestId: REQUEST_ID }, { stream: true });
    sink.event({ type: 'step', step: { kind: 'plugin', name: 'web-search', status: 'started' } });
    sink.event({ type: 'delta', model: 'gpt-4.1-mini', choices: [{ index: 0, delta: { content: 'Let me ' }, finish_reason: null }] });
    sink.event({ type: 'delta', model: 'gpt-4.1-mini', choices: [{ index: 0, delta: { content: 'look.' }, finish_reason: null }] });
    sink.event({
      type: 'delta',
      model: 'gpt-4.1-mini',
      choices: [
        { index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'a', arguments: '' } }] }, finish_reason: null },
      ],
    });
    sink.event({
      type: 'delta',
      model: 'gpt-4.1-mini',
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] }, finish_reason: null }],
    });
    sink.event({
      type: 'delta',
      model: 'gpt-4.1-mini',
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '1}' } }] }, finish_reason: null }],
    });
    sink.event({
      type: 'delta',
      model: 'gpt-4.1-mini',
      choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_2', function: { name: 'b', arguments: '{}' } }] }, finish_reason: 'tool_calls' }],
    });
    sink.done(finishedOf(result()));
    expect(wire.comments).toEqual(['step {"kind":"plugin","name":"web-search","status":"started"}']);
    expect(wire.events.map((e) => [e.type, e.index ?? null])).toEqual([
      ['message_start', null],
      ['ping', null],
      ['content_block_start', 0],
      ['content_block_delta', 0],
      ['content_block_delta', 0],
      ['content_block_stop', 0],
      ['content_block_start', 1],
      ['content_block_delta', 1],
      ['content_block_delta', 1],
      ['content_block_stop', 1],
      ['content_block_start', 2],
      ['content_block_delta', 2],
      ['content_block_stop', 2],
      ['message_delta', null],
      ['message_stop', null],
    ]);
    expect(wire.events[0]).toMatchObject({ message: { id: `msg_${REQUEST_ID}`, type: 'message', role: 'assistant', model: 'gpt-4.1-mini', content: [] } });
    expect(wire.events[6]).toEqual({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_1', name: 'a', input: {} } });
    expect(wire.events[8]).toEqual({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '1}' } });
    expect(wire.events[13]).toMatchObject({
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 12, output_tokens: 5 },
      metadata: { status_code: 200 },
    });
    expect(wire.ended).toBe(true);
  });

  it('an empty answer still makes a whole message; max_tokens when cut at the length', () => {
    const wire = recorder();
    const sink = anthropicMessagesSink(wire, { requestId: REQUEST_ID }, { stream: true });
    sink.event({ type: 'delta', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'length' }] });
    sink.done(finishedOf(result()));
    expect(wire.events.map((e) => e.type)).toEqual(['message_start', 'ping', 'message_delta', 'message_stop']);
    expect(wire.events[2]).toMatchObject({ delta: { stop_reason: 'max_tokens' } });
  });

  it('a failure goes to the wire sink, which writes it in Anthropic’s shape', () => {
    const wire = recorder();
    const sink = anthropicMessagesSink(wire, { requestId: REQUEST_ID }, { stream: true });
    sink.error({ status: 503, type: 'server_error', code: 'service_unavailable', message: 'busy', param: null });
    expect(wire.failures).toEqual([
      { status: 503, body: { error: { message: 'busy', type: 'server_error', code: 'service_unavailable', param: null } }, headers: undefined },
    ]);
  });
});

describe('anthropicMessageBody', () => {
  it('text then tool_use blocks, tool arguments as the input object', () => {
    const body = anthropicMessageBody(
      result({
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: 'Checking.',
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'a', arguments: '{"q":"x"}' } }],
            },
          },
        ],
      }),
    );
    expect(body).toMatchObject({
      id: `msg_${REQUEST_ID}`,
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_1', name: 'a', input: { q: 'x' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 12, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });
});

describe('chatRequestOf', () => {
  it('translates system, images, tool_use and tool_result as the chat request expects them', () => {
    const body = messagesRequestSchema.parse({
      model: 'switchyard',
      max_tokens: 64,
      system: [
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } },
      ],
      stop_sequences: ['END'],
      metadata: { user_id: 'u1' },
      tools: [{ name: 'w', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'url', url: 'https://example.org/a.png' } },
            { type: 'text', text: 'Look' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'tool_use', id: 't1', name: 'w', input: { q: 1 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok' }] },
            { type: 'text', text: 'and?' },
          ],
        },
      ],
    });
    expect(chatRequestOf(body)).toEqual({
      model: 'switchyard',
      max_tokens: 64,
      stream: false,
      stop: ['END'],
      user: 'u1',
      tools: [{ type: 'function', function: { name: 'w', parameters: { type: 'object' } } }],
      tool_choice: 'required',
      response_format: { type: 'json_schema', json_schema: { name: 'output', schema: { type: 'object' } } },
      messages: [
        { role: 'system', content: 'A\n\nB' },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://example.org/a.png' } },
            { type: 'text', text: 'Look' },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'w', arguments: '{"q":1}' } }] },
        { role: 'tool', tool_call_id: 't1', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'and?' }] },
      ],
    });
  });

  it('names a block its role cannot send', () => {
    const body = messagesRequestSchema.parse({
      model: 'm',
      max_tokens: 1,
      messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'x', name: 'n', input: {} }] }],
    });
    expect(misplacedBlock(body)).toEqual({ param: 'messages.0.content.0', message: "A user message cannot hold a 'tool_use' block." });
  });
});
