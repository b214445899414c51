import type { ChatRequest } from '../../domain/chat';
import { budgetTokensOf, type Reasoning } from '../../domain/reasoning';
import type { GeminiThinkingConfig } from './wire';

/** The largest `thinkingBudget` every Gemini 2.5 model takes (Flash and Flash-Lite stop there; Pro goes to 32,768). */
export const MAX_THINKING_BUDGET = 24576;

/** Gemini's own "as much as the prompt needs". */
const DYNAMIC_THINKING = -1;

/**
 * The request's reasoning as Gemini's `thinkingConfig`: the budget it asks for (its own or its effort's;
 * 0, no thinking, for `none`), at most `MAX_THINKING_BUDGET`; dynamic thinking when it names neither.
 */
export function thinkingConfigOf(reasoning: Reasoning): GeminiThinkingConfig {
  const budget = budgetTokensOf(reasoning);
  return { thinkingBudget: budget === undefined ? DYNAMIC_THINKING : Math.min(budget, MAX_THINKING_BUDGET) };
}

/** The provider's `fitReasoning`: a budget above what Gemini takes is lowered to it, and said so. */
export function fitThinkingBudget(request: ChatRequest, model: string): string[] {
  const budget = request.reasoning && budgetTokensOf(request.reasoning);
  if (budget === undefined || budget <= MAX_THINKING_BUDGET) return [];
  request.reasoning = { budgetTokens: MAX_THINKING_BUDGET };
  return [`thinking budget lowered from ${budget} to ${MAX_THINKING_BUDGET} tokens for ${model}, the most every Gemini 2.5 model takes.`];
}
