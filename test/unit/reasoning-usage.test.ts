import { costOf } from '../../src/accounting/costs';
import { sumUsage, type Usage } from '../../src/domain/chat';
import { chatUsageOf } from '../../src/formats/openai-chat';
import { anthropicUsageOf } from '../../src/http/formats/anthropic-message';
import { responsesUsageOf } from '../../src/http/formats/openai-responses';
import { RunTrace } from '../../src/pipeline/run-trace';
import { toChatResult, usageOf as anthropicUsage } from '../../src/providers/anthropic/response';
import { AnthropicStreamTranslator } from '../../src/providers/anthropic/stream';
import { usageOf as openAiUsage } from '../../src/providers/openai-compatible/wire';
import { readStoredLog } from '../../src/schemas/stored-log';
import { routable } from '../helpers/routable-model';

/** Reasoning tokens as each provider reports them, counted once in the domain usage, billed as output, and written in each API's shape. */

const thinking: Usage = { prompt_tokens: 10, completion_tokens: 40, total_tokens: 50, reasoning_tokens: 32 };

describe('reasoning tokens from the providers', () => {
  it('OpenAI-compatible: completion_tokens_details.reasoning_tokens, part of completion_tokens', () => {
    const usage = { prompt_tokens: 10, completion_tokens: 40, total_tokens: 50, completion_tokens_details: { reasoning_tokens: 32 } };
    expect(openAiUsage({ usage })).toEqual(thinking);
    expect(openAiUsage({ usage: { ...usage, completion_tokens_details: { reasoning_tokens: 0 } } })).toEqual(sumUsage(10, 40));
    expect(openAiUsage({ usage: { prompt_tokens: 10, completion_tokens: 40, total_tokens: 50 } })).toEqual(sumUsage(10, 40));
  });

  it('Anthropic: output_tokens count the thinking; output_tokens_details.thinking_tokens says how many', () => {
    expect(anthropicUsage({ input_tokens: 10, output_tokens: 40, output_tokens_details: { thinking_tokens: 32 } })).toEqual(thinking);
    expect(anthropicUsage({ input_tokens: 10, output_tokens: 40, output_tokens_details: null })).toEqual(sumUsage(10, 40));
  });

  it('Anthropic: a thinking block is skipped in a whole answer and in a stream, whose later blocks keep their index', () => {
    const result = toChatResult({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [
        { type: 'thinking', thinking: 'Let me see.', signature: 'sig' },
        { type: 'text', text: 'Yes.' },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 40, output_tokens_details: { thinking_tokens: 32 } },
    });
    expect(result.choices[0]?.message).toEqual({ role: 'assistant', content: 'Yes.' });
    expect(result.usage).toEqual(thinking);

    const translator = new AnthropicStreamTranslator();
    const push = (type: string, data: object) => translator.push({ event: type, data: JSON.stringify({ type, ...data }) });
    const chunks = [
      push('message_start', { message: { usage: { input_tokens: 10, output_tokens: 1 } } }),
      push('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
      push('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Let me see.' } }),
      push('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }),
      push('content_block_stop', { index: 0 }),
      push('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} } }),
      push('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":1}' } }),
      push('content_block_stop', { index: 1 }),
      push('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 40, output_tokens_details: { thinking_tokens: 32 } } }),
      push('message_stop', {}),
    ].flat();
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta))).toEqual([
      { role: 'assistant' },
      { tool_calls: [{ index: 0, id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] },
      {},
    ]);
    expect(chunks.at(-1)?.usage).toEqual(thinking);
  });
});

describe('reasoning tokens in the request', () => {
  it('are billed as output: they are part of the completion tokens', () => {
    const model = routable({ promptTokenCost: 1e-6, completionTokenCost: 4e-6 });
    expect(costOf(model, thinking)).toEqual(costOf(model, sumUsage(10, 40)));
    expect(costOf(model, thinking).completion_tokens).toBeCloseTo(40 * 4e-6, 12);
  });

  it('are summed over the model calls that reported some, and absent when none did', () => {
    const trace = new RunTrace();
    trace.addAnswer(routable(), { usage: sumUsage(5, 5), latencyMs: 1 });
    expect(trace.totalUsage()).not.toHaveProperty('reasoning_tokens');
    trace.addAnswer(routable(), { usage: thinking, latencyMs: 1 });
    trace.addAnswer(routable(), { usage: { ...thinking, reasoning_tokens: 8 }, latencyMs: 1 });
    expect(trace.totalUsage()).toEqual({ prompt_tokens: 25, completion_tokens: 85, total_tokens: 110, reasoning_tokens: 40 });
  });

  it("are kept in the log's stored answer", () => {
    const model = { id: 'm', model: 'm', namespace: 'm', provider: 'openai', owner: 'openai', at: '' };
    const view = readStoredLog({ v: 2, answer: { choices: [], usage: thinking, model, status: 200 } });
    expect(view?.answer?.usage).toEqual(thinking);
  });
});

describe('reasoning tokens on each API', () => {
  it('chat completions: completion_tokens_details.reasoning_tokens, the usage as it is without them', () => {
    expect(chatUsageOf(thinking)).toEqual({ prompt_tokens: 10, completion_tokens: 40, total_tokens: 50, completion_tokens_details: { reasoning_tokens: 32 } });
    const plain = sumUsage(10, 40);
    expect(chatUsageOf(plain)).toBe(plain);
  });

  it('Responses: output_tokens_details.reasoning_tokens', () => {
    expect(responsesUsageOf(thinking).output_tokens_details).toEqual({ reasoning_tokens: 32 });
    expect(responsesUsageOf(sumUsage(1, 2)).output_tokens_details).toEqual({ reasoning_tokens: 0 });
  });

  it('Anthropic Messages: in output_tokens, and told apart in output_tokens_details.thinking_tokens', () => {
    expect(anthropicUsageOf(thinking)).toMatchObject({ output_tokens: 40, output_tokens_details: { thinking_tokens: 32 } });
    expect(anthropicUsageOf(sumUsage(1, 2))).not.toHaveProperty('output_tokens_details');
  });
});
