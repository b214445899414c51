import { costOf, savingsOf } from '../../src/accounting/costs';
import { mergeFeatureFlags, parseFeatureFlagsHeader } from '../../src/schemas/feature-flag-header';
import { MASK, maskContent } from '../../src/pipeline/privacy';
import { StreamAssembler } from '../../src/pipeline/stream-assembler';
import { routable } from '../helpers/routable-model';

describe('costs', () => {
  const usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };

  it('prices tokens at the catalog rates, with the base cost in the total', () => {
    expect(costOf(routable({ baseCost: 0.001 }), usage)).toEqual({ prompt_tokens: 0.001, completion_tokens: 0.001, total_tokens: 0.003 });
  });

  it('saves what the benchmark would have cost more, and may be negative', () => {
    const actual = costOf(routable(), usage);
    expect(savingsOf(routable({ promptTokenCost: 5e-6, completionTokenCost: 10e-6 }), usage, actual)).toEqual({
      prompt_tokens: 0.004,
      completion_tokens: 0.004,
      total_tokens: 0.008,
    });
    expect(savingsOf(routable({ promptTokenCost: 0, completionTokenCost: 0 }), usage, actual).total_tokens).toBe(-0.002);
    expect(savingsOf(null, usage, actual)).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });
});

describe('feature flags', () => {
  it('reads a JSON object of flag names to strings', () => {
    expect(parseFeatureFlagsHeader('{"auto_tools": "true", "citations": "false", "future_flag": "true"}')).toEqual({ auto_tools: true, citations: false });
    expect(parseFeatureFlagsHeader(undefined)).toEqual({});
  });

  it.each(['not json', '[1]', '"true"', '{"auto_tools": "maybe"}'])('refuses %j with a 400 naming the header', (header) => {
    expect(() => parseFeatureFlagsHeader(header)).toThrow(expect.objectContaining({ status: 400, param: 'Service-Feature-Flags' }));
  });

  it('lets the body win over the header', () => {
    expect(mergeFeatureFlags({ auto_tools: true, citations: true }, { citations: false })).toEqual({ auto_tools: true, citations: false });
  });
});

describe('maskContent', () => {
  it('masks what was said and keeps the structure', () => {
    const request = {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'secret instructions' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image_url', image_url: { url: 'https://x/y.png' } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
      ],
      temperature: 0.2,
    };
    expect(maskContent(request)).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: MASK },
        {
          role: 'user',
          content: [
            { type: 'text', text: MASK },
            { type: 'image_url', image_url: { url: MASK } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: MASK } }] },
      ],
      temperature: 0.2,
    });
  });
});

describe('StreamAssembler', () => {
  it('rebuilds text, tool calls, finish reason and usage from deltas', () => {
    const assembler = new StreamAssembler();
    assembler.add({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] });
    assembler.add({ choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: null }] });
    assembler.add({
      choices: [
        { index: 0, delta: { tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }, finish_reason: null },
      ],
    });
    assembler.add({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, finish_reason: 'tool_calls' }] });
    assembler.add({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } });
    expect(assembler.choices()).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
        finish_reason: 'tool_calls',
      },
    ]);
    expect(assembler.usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect(assembler.text()).toBe('Hello');
  });
});
