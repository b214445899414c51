import type { ChatRequest } from '../../src/domain/chat';
import type { Reasoning } from '../../src/domain/reasoning';
import { fitRequest } from '../../src/pipeline/fit-request';
import { anthropicProvider } from '../../src/providers/anthropic/provider';
import { DEFAULT_MAX_TOKENS, toMessagesRequest } from '../../src/providers/anthropic/request';
import { fitThinking } from '../../src/providers/anthropic/thinking';
import { geminiProvider } from '../../src/providers/gemini/provider';
import { toGeminiBody } from '../../src/providers/gemini/request';
import { requestBody } from '../../src/providers/openai-compatible/request';
import { OPENAI_COMPATIBLE_VENDORS } from '../../src/providers/openai-compatible/vendors';
import { preparedCompletion } from '../helpers/prepared-completion';
import { routable } from '../helpers/routable-model';

/** The request's reasoning in each provider's dialect (docs/reasoning.md), and what is left out where it cannot go. */

const openai = OPENAI_COMPATIBLE_VENDORS.find((vendor) => vendor.id === 'openai');
if (!openai) throw new Error('no openai vendor');
const ask = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'o4-mini', messages: [{ role: 'user', content: 'Why?' }], ...extra });

describe('OpenAI-compatible: reasoning_effort', () => {
  it.each<[Reasoning, string | undefined]>([
    [{ effort: 'high' }, 'high'],
    [{ effort: 'none' }, 'none'],
    [{ budgetTokens: 2048 }, 'low'],
    [{ budgetTokens: 10_000 }, 'medium'],
    [{ budgetTokens: 30_000 }, 'high'],
    [{ budgetTokens: 30_000, effort: 'minimal' }, 'minimal'],
  ])('%j → %s', (reasoning, effort) => {
    expect(requestBody(openai, ask({ reasoning }), 'whole')).toMatchObject({ reasoning_effort: effort });
  });

  it('sends nothing for a request that leaves the effort to the model, or says nothing of reasoning', () => {
    expect(requestBody(openai, ask({ reasoning: {} }), 'whole')).not.toHaveProperty('reasoning_effort');
    expect(requestBody(openai, ask(), 'whole')).not.toHaveProperty('reasoning_effort');
  });

  it("is Switchyard's own: a forwarded extra does not override it", () => {
    expect(requestBody(openai, ask({ reasoning: { effort: 'low' }, extra: { reasoning_effort: 'high' } }), 'whole')).toMatchObject({ reasoning_effort: 'low' });
  });
});

describe('Anthropic: thinking', () => {
  const claude = (extra: Partial<ChatRequest>) => toMessagesRequest({ ...ask(extra), model: 'claude-x' }, { stream: false });

  it.each<[Reasoning, number]>([
    [{ budgetTokens: 3000 }, 3000],
    [{ effort: 'low' }, 1024],
    [{ effort: 'medium' }, 8192],
    [{}, 24576],
  ])('%j → budget %s, with the default room for the answer above it when max_tokens is not set', (reasoning, budget) => {
    expect(claude({ reasoning })).toMatchObject({ thinking: { type: 'enabled', budget_tokens: budget }, max_tokens: budget + DEFAULT_MAX_TOKENS });
  });

  it('thinks not at all for none, nor without reasoning', () => {
    expect(claude({ reasoning: { effort: 'none' } })).not.toHaveProperty('thinking');
    expect(claude({})).not.toHaveProperty('thinking');
    expect(claude({}).max_tokens).toBe(DEFAULT_MAX_TOKENS);
  });

  const fitted = (extra: Partial<ChatRequest>) => {
    const request = ask({ reasoning: { effort: 'medium' }, ...extra });
    const notes = fitThinking(request, 'claude-x');
    return { request, notes };
  };

  it('leaves out temperature and a low top_p beside thinking, and says so', () => {
    const { request, notes } = fitted({ temperature: 0.2, top_p: 0.5 });
    expect(request).not.toHaveProperty('temperature');
    expect(request).not.toHaveProperty('top_p');
    expect(request.reasoning).toEqual({ budgetTokens: 8192 });
    expect(notes).toEqual(['temperature left out: claude-x takes none beside thinking.', 'top_p left out: claude-x takes 0.95 to 1 beside thinking.']);
  });

  it('keeps temperature 1 and a top_p of 0.95 or more', () => {
    const { request, notes } = fitted({ temperature: 1, top_p: 0.97 });
    expect(request).toMatchObject({ temperature: 1, top_p: 0.97 });
    expect(notes).toEqual([]);
  });

  it('keeps the budget under max_tokens, or thinks not at all under 1,025', () => {
    expect(fitted({ max_tokens: 3000 })).toEqual({
      request: expect.objectContaining({ reasoning: { budgetTokens: 2999 } }) as unknown,
      notes: ['thinking budget lowered from 8192 to 2999 tokens, under max_tokens (3000).'],
    });
    const small = fitted({ max_tokens: 1000 });
    expect(small.request).not.toHaveProperty('reasoning');
    expect(small.notes).toEqual(['claude-x thinks with at least 1024 tokens, under max_tokens (1000): it answered without thinking.']);
  });

  it("lowers Anthropic's own default budget without a word", () => {
    const request = ask({ reasoning: {}, max_tokens: 4096 });
    expect(fitThinking(request, 'claude-x')).toEqual([]);
    expect(request.reasoning).toEqual({ budgetTokens: 4095 });
  });

  it('thinks not where Claude cannot: a forced tool call, a tool result Claude would want its thinking back with', () => {
    const tools: ChatRequest['tools'] = [{ type: 'function', function: { name: 'f' } }];
    const forced = fitted({ tools, tool_choice: 'required' });
    expect(forced.request).not.toHaveProperty('reasoning');
    expect(forced.notes).toEqual(['claude-x cannot think when a tool call is forced (tool_choice): it answered without thinking.']);
    expect(fitted({ tools, tool_choice: 'auto' }).request.reasoning).toEqual({ budgetTokens: 8192 });
    const continued = fitted({
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'Sunny' },
      ],
    });
    expect(continued.request).not.toHaveProperty('reasoning');
    expect(continued.notes).toEqual(['claude-x answered this tool result without thinking: the thinking blocks Claude needs back with it are not kept.']);
  });

  it('changes the fitted copy, never the prepared request', () => {
    const prepared = preparedCompletion({ reasoning: { effort: 'high' }, temperature: 0.5, max_tokens: 2000 });
    const { request } = fitRequest(prepared, routable({ model: 'claude-x', provider: 'anthropic' }), anthropicProvider);
    expect(request.reasoning).toEqual({ budgetTokens: 1999 });
    expect(prepared.chat).toMatchObject({ reasoning: { effort: 'high' }, temperature: 0.5 });
  });
});

describe('Gemini: thinkingConfig.thinkingBudget', () => {
  const gemini = (reasoning?: Reasoning) => toGeminiBody({ ...ask(), model: 'gemini-2.5-flash', reasoning });

  it.each<[Reasoning, number]>([
    [{ effort: 'low' }, 1024],
    [{ effort: 'high' }, 24576],
    [{ effort: 'none' }, 0],
    [{ budgetTokens: 5000 }, 5000],
    [{}, -1],
    [{ effort: 'max' }, 24576],
  ])('%j → %s', (reasoning, budget) => {
    expect(gemini(reasoning).generationConfig).toEqual({ thinkingConfig: { thinkingBudget: budget } });
  });

  it('sends no thinkingConfig without reasoning', () => {
    expect(gemini().generationConfig).toBeUndefined();
  });

  it('says so when a budget is lowered to what every Gemini 2.5 model takes', () => {
    const { request, notes } = fitRequest(
      preparedCompletion({ reasoning: { effort: 'xhigh' } }),
      routable({ model: 'gemini-x', provider: 'gemini' }),
      geminiProvider,
    );
    expect(request.reasoning).toEqual({ budgetTokens: 24576 });
    expect(notes).toEqual(['thinking budget lowered from 32768 to 24576 tokens for gemini-x, the most every Gemini 2.5 model takes.']);
  });
});

describe('a model that takes no reasoning setting', () => {
  const plain = routable({ model: 'plain-model', supports: { ...routable().supports, reasoning: false } });

  it('gets the request without it, and the warning says so', () => {
    const { request, notes } = fitRequest(preparedCompletion({ reasoning: { effort: 'high' } }), plain, {});
    expect(request).not.toHaveProperty('reasoning');
    expect(notes).toEqual(["plain-model takes no reasoning setting: it answered without the request's reasoning_effort / thinking."]);
  });

  it('needs no word when the request asked for no reasoning', () => {
    expect(fitRequest(preparedCompletion({ reasoning: { effort: 'none' } }), plain, {}).notes).toEqual([]);
  });

  it('costs nothing for a request that says nothing of reasoning', () => {
    const { request, notes } = fitRequest(preparedCompletion(), plain, {});
    expect(request).not.toHaveProperty('reasoning');
    expect(notes).toEqual([]);
  });
});
