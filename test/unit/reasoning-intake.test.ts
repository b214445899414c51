import { budgetTokensOf, effortOf } from '../../src/domain/reasoning';
import { reasoningOf, thinkingBudgetProblem } from '../../src/http/formats/anthropic-thinking';
import { chatRequestOf } from '../../src/http/formats/openai-responses-input';
import { decideCompletion, privacyOf } from '../../src/intake/decide-completion';
import { messagesRequestSchema } from '../../src/schemas/anthropic-messages';
import { completionRequestSchema } from '../../src/schemas/chat-completions';
import { unforwardedField } from '../../src/schemas/forwarded-fields';
import { responsesRequestSchema, type ResolvedItem } from '../../src/schemas/responses';
import { spaceContext } from '../helpers/space-context';

/** The request's reasoning, decided once at intake from whichever dialect the client spoke (docs/reasoning.md). */

const space = spaceContext();
const decide = (body: Record<string, unknown>, reasoning?: Parameters<typeof decideCompletion>[1]['reasoning']) => {
  const wire = completionRequestSchema.parse({ messages: [{ role: 'user', content: 'hi' }], ...body });
  return decideCompletion(wire, { space, privacy: privacyOf(space, wire), headerFlags: {}, autoModelName: 'auto', reasoning }).request.chat;
};

describe('the effort and budget tables', () => {
  it.each([
    [{ effort: 'low' as const }, 1024],
    [{ effort: 'medium' as const }, 8192],
    [{ effort: 'high' as const }, 24576],
    [{ effort: 'max' as const }, 49152],
    [{ effort: 'none' as const }, 0],
    [{ effort: 'low' as const, budgetTokens: 3000 }, 3000],
    [{}, undefined],
  ])('budget of %j is %s', (reasoning, budget) => {
    expect(budgetTokensOf(reasoning)).toBe(budget);
  });

  it.each([
    [{ budgetTokens: 1024 }, 'low'],
    [{ budgetTokens: 8191 }, 'low'],
    [{ budgetTokens: 8192 }, 'medium'],
    [{ budgetTokens: 24576 }, 'high'],
    [{ budgetTokens: 60000 }, 'high'],
    [{ effort: 'minimal' as const, budgetTokens: 60000 }, 'minimal'],
    [{}, undefined],
  ])('effort of %j is %s', (reasoning, effort) => {
    expect(effortOf(reasoning)).toBe(effort);
  });
});

describe("chat's reasoning_effort", () => {
  it('is a field of the schema, no longer a forwarded one', () => {
    expect(unforwardedField({ messages: [], reasoning_effort: 'low' }, undefined)).toBeNull();
    expect(decide({ reasoning_effort: 'high' })).toMatchObject({ reasoning: { effort: 'high' } });
    expect(decide({ reasoning_effort: 'high' }).extra).toBeUndefined();
  });

  it('takes the values OpenAI takes and refuses others', () => {
    for (const effort of ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']) {
      expect(completionRequestSchema.safeParse({ messages: [{ role: 'user', content: 'x' }], reasoning_effort: effort }).success).toBe(true);
    }
    expect(completionRequestSchema.safeParse({ messages: [{ role: 'user', content: 'x' }], reasoning_effort: 'huge' }).success).toBe(false);
  });

  it('absent or null, leaves the domain request without reasoning', () => {
    expect(decide({}).reasoning).toBeUndefined();
    expect(decide({ reasoning_effort: null }).reasoning).toBeUndefined();
  });

  it("gives way to the reasoning a route decided from its own dialect (Anthropic's thinking)", () => {
    expect(decide({ reasoning_effort: 'low' }, { budgetTokens: 5000 }).reasoning).toEqual({ budgetTokens: 5000 });
  });
});

describe("the Responses API's reasoning.effort", () => {
  const parse = (reasoning: unknown) => {
    const request = responsesRequestSchema.parse({ input: 'hi', reasoning });
    return chatRequestOf(
      request,
      request.input.filter((item): item is ResolvedItem => item.type !== 'item_reference'),
    );
  };

  it("becomes chat's reasoning_effort", () => {
    expect(parse({ effort: 'medium' })).toMatchObject({ reasoning_effort: 'medium' });
    expect(parse({ effort: 'xhigh' })).toMatchObject({ reasoning_effort: 'xhigh' });
  });

  it('is left out when null or absent', () => {
    expect(parse({ effort: null })).not.toHaveProperty('reasoning_effort');
    expect(parse(null)).not.toHaveProperty('reasoning_effort');
  });
});

describe("Anthropic's thinking", () => {
  const parse = (fields: Record<string, unknown>) =>
    messagesRequestSchema.parse({ model: 'm', max_tokens: 4096, messages: [{ role: 'user', content: 'hi' }], ...fields });

  it.each([
    [{ thinking: { type: 'enabled', budget_tokens: 2048 } }, { budgetTokens: 2048 }],
    [
      { thinking: { type: 'enabled', budget_tokens: 2048, display: 'omitted' }, output_config: { effort: 'low' } },
      { budgetTokens: 2048, effort: 'low' },
    ],
    [{ thinking: { type: 'adaptive' } }, {}],
    [{ thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }, { effort: 'max' }],
    [{ output_config: { effort: 'medium' } }, { effort: 'medium' }],
    [{ thinking: { type: 'disabled' } }, undefined],
    [{ thinking: { type: 'disabled' }, output_config: { effort: 'high' } }, undefined],
    [{}, undefined],
  ])('%j → %j', (fields, reasoning) => {
    expect(reasoningOf(parse(fields))).toEqual(reasoning);
  });

  it('refuses what Anthropic refuses: a budget under 1,024, a type it does not have', () => {
    expect(messagesRequestSchema.safeParse({ model: 'm', max_tokens: 4096, messages: [], thinking: { type: 'enabled', budget_tokens: 1000 } }).success).toBe(
      false,
    );
    const unknownType = { model: 'm', max_tokens: 4096, messages: [{ role: 'user', content: 'x' }], thinking: { type: 'sometimes' } };
    expect(messagesRequestSchema.safeParse(unknownType).success).toBe(false);
  });

  it('wants the budget under max_tokens, as Anthropic does', () => {
    expect(thinkingBudgetProblem({ max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 2048 } })).toMatch(/less than 'max_tokens' \(2048\)/);
    expect(thinkingBudgetProblem({ max_tokens: 2049, thinking: { type: 'enabled', budget_tokens: 2048 } })).toBeNull();
    expect(thinkingBudgetProblem({ max_tokens: 100, thinking: { type: 'adaptive' } })).toBeNull();
  });
});
