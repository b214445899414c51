import type { ChunkChoice } from '../../src/domain/chat';
import { chatRequestOf } from '../../src/http/formats/openai-responses-input';
import { ResponseStreamWriter } from '../../src/http/formats/openai-responses-stream';
import { responsesRequestSchema, type ResolvedItem, type ResponsesRequest } from '../../src/schemas/responses';
import { functionCallItemIdOf, messageItemIdOf } from '../../src/services/responses/response-ids';

/** The Responses edge's pure translations: request → chat request, chat deltas → typed events. */

const REQUEST_ID = '0123abcd-0000-4000-8000-00000000beef';

function parse(body: unknown): ResponsesRequest {
  return responsesRequestSchema.parse(body);
}

/** The request's items, none of them a reference (the service resolves those before translating). */
function itemsOf(request: ResponsesRequest): ResolvedItem[] {
  return request.input.filter((item): item is ResolvedItem => item.type !== 'item_reference');
}

describe('chatRequestOf', () => {
  it('reads a string input as one user message, after the instructions', () => {
    const request = parse({ input: 'Hi', instructions: 'Be brief.' });
    expect(chatRequestOf(request, itemsOf(request))).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      stream: false,
    });
  });

  it('folds function calls into the assistant turn before them and outputs into tool messages', () => {
    const request = parse({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Weather?' },
            { type: 'input_image', image_url: 'https://x.test/a.png', detail: 'low' },
          ],
        },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.', annotations: [] }] },
        { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{}' },
        { type: 'function_call', call_id: 'c2', name: 'get_time', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'Sunny' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'Noon' }] },
      ],
    });
    const chat = chatRequestOf(request, itemsOf(request));
    expect(chat.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather?' },
          { type: 'image_url', image_url: { url: 'https://x.test/a.png', detail: 'low' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          { id: 'c2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Sunny' },
      { role: 'tool', tool_call_id: 'c2', content: 'Noon' },
    ]);
  });

  it('maps tools, tool_choice, the text format and the sampling fields to chat', () => {
    const request = parse({
      model: 'gpt-4.1-mini',
      input: 'Hi',
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }],
      tool_choice: { type: 'function', name: 'f' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
      temperature: 0.5,
      top_p: 0.9,
      max_output_tokens: 100,
      parallel_tool_calls: false,
      reasoning: { effort: 'low' },
      stream: true,
    });
    expect(chatRequestOf(request, itemsOf(request))).toEqual({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      temperature: 0.5,
      top_p: 0.9,
      max_completion_tokens: 100,
      parallel_tool_calls: false,
      reasoning_effort: 'low',
    });
  });
});

function writerEvents(deltas: ChunkChoice['delta'][]): { type: string; [key: string]: unknown }[] {
  const written: string[] = [];
  const writer = new ResponseStreamWriter(REQUEST_ID, (data) => written.push(data));
  for (const delta of deltas) writer.delta({ index: 0, delta, finish_reason: null });
  writer.end();
  return written.map((data) => JSON.parse(data) as { type: string });
}

describe('ResponseStreamWriter', () => {
  it('opens, feeds and closes a text message then a function call, numbering every event', () => {
    const events = writerEvents([
      { content: 'Let me ' },
      { content: 'check.' },
      { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"q":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] },
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[4]).toMatchObject({ item_id: messageItemIdOf(REQUEST_ID), output_index: 0, content_index: 0, text: 'Let me check.' });
    expect(events[10]).toMatchObject({ item_id: functionCallItemIdOf(REQUEST_ID, 0), output_index: 1, name: 'get_weather', arguments: '{"q":"Oslo"}' });
    expect(events[11]).toMatchObject({
      item: { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"q":"Oslo"}', status: 'completed' },
    });
  });
});
