import type { Reasoning } from '../../domain/reasoning';
import type { MessagesRequest } from '../../schemas/anthropic-messages';

/**
 * Anthropic's `thinking` and `output_config.effort` as the domain's reasoning (docs/reasoning.md):
 * `enabled` → its budget; `adaptive` → the effort, or the model's own judgement without one; an
 * effort alone → that effort; `disabled` → none (an effort beside it has nothing left to set). Undefined
 * when the request asks for no reasoning, as most do: nothing is made for them.
 */
export function reasoningOf({ thinking, output_config: output }: Pick<MessagesRequest, 'thinking' | 'output_config'>): Reasoning | undefined {
  const effort = output?.effort ?? undefined;
  if (thinking === undefined) return effort === undefined ? undefined : { effort };
  if (thinking.type === 'disabled') return undefined;
  const reasoning: Reasoning = thinking.type === 'enabled' ? { budgetTokens: thinking.budget_tokens } : {};
  if (effort !== undefined) reasoning.effort = effort;
  return reasoning;
}

/** Anthropic's rule, refused as it refuses it: a thinking budget below `max_tokens`. Null when it holds (or there is no budget). */
export function thinkingBudgetProblem({ thinking, max_tokens: maxTokens }: Pick<MessagesRequest, 'thinking' | 'max_tokens'>): string | null {
  if (thinking?.type !== 'enabled' || thinking.budget_tokens < maxTokens) return null;
  return `'thinking.budget_tokens' must be less than 'max_tokens' (${maxTokens}): thinking tokens count toward it.`;
}
