/**
 * How much a model should reason before it answers, as the request asked it in whichever dialect the
 * client spoke: OpenAI's `reasoning_effort` (chat) or `reasoning.effort` (Responses), Anthropic's
 * `thinking` (with `output_config.effort`). Decided once at intake; each adapter says it in its own
 * provider's terms (docs/reasoning.md has the table).
 */

/** OpenAI's efforts and Anthropic's, one list: `none` asks for no reasoning, `xhigh` and `max` are Anthropic's (and newer OpenAI models'). */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * The request's reasoning. Both fields absent: reason, at the model's own judgement (Anthropic's
 * `adaptive` thinking without an effort). A request that says nothing of reasoning has none of this.
 */
export interface Reasoning {
  effort?: ReasoningEffort;
  /** Tokens the model may think with (Anthropic's `budget_tokens`). */
  budgetTokens?: number;
}

/**
 * Thinking tokens for an effort, for the providers that take a budget (Anthropic, Gemini). Low, medium
 * and high are Google's own mapping of OpenAI's efforts to Gemini's `thinkingBudget`; `minimal` is the
 * least Anthropic takes (1,024); `xhigh` and `max` stay under the 64k output tokens of the Claude models
 * with room for the answer.
 */
export const EFFORT_BUDGET_TOKENS: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = {
  minimal: 1024,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 32768,
  max: 49152,
};

/**
 * The budget for a request that names neither an effort nor a budget, where a provider needs one named
 * (Claude's extended thinking): `high`'s, the effort Anthropic's adaptive thinking assumes.
 */
export const DEFAULT_BUDGET_TOKENS = EFFORT_BUDGET_TOKENS.high;

/**
 * The thinking budget the request asks for: its own budget, else its effort's (0 for `none`), else
 * undefined (the model's own judgement).
 */
export function budgetTokensOf(reasoning: Reasoning): number | undefined {
  if (reasoning.budgetTokens !== undefined) return reasoning.budgetTokens;
  if (reasoning.effort === undefined) return undefined;
  return reasoning.effort === 'none' ? 0 : EFFORT_BUDGET_TOKENS[reasoning.effort];
}

/**
 * The effort the request asks for: its own, else the one its budget falls in (by the table above, and
 * only `low`, `medium` or `high`, which every OpenAI-compatible reasoning model takes), else undefined.
 */
export function effortOf(reasoning: Reasoning): ReasoningEffort | undefined {
  if (reasoning.effort !== undefined) return reasoning.effort;
  const budget = reasoning.budgetTokens;
  if (budget === undefined) return undefined;
  if (budget < EFFORT_BUDGET_TOKENS.medium) return 'low';
  return budget < EFFORT_BUDGET_TOKENS.high ? 'medium' : 'high';
}
