import type { ChatRequest } from '../../domain/chat';
import { budgetTokensOf, DEFAULT_BUDGET_TOKENS, type Reasoning } from '../../domain/reasoning';
import type { ThinkingParam } from './wire';

/** The least thinking budget Anthropic takes. */
export const MIN_THINKING_BUDGET = 1024;

/** With thinking, Anthropic takes `top_p` from 0.95 to 1 only, and `temperature` only at 1. */
const MIN_TOP_P_WITH_THINKING = 0.95;

/**
 * The request's extended thinking, in Anthropic's terms: `enabled` with the budget its reasoning asks
 * for (its own, its effort's, else `high`'s, as adaptive thinking assumes); none for `none`, or without
 * reasoning. Claude models of the catalog take budgeted thinking (adaptive thinking is Claude 4.6's).
 */
export function thinkingOf(reasoning: Reasoning): ThinkingParam | undefined {
  const budget = budgetTokensOf(reasoning) ?? DEFAULT_BUDGET_TOKENS;
  return budget > 0 ? { type: 'enabled', budget_tokens: budget } : undefined;
}

/** Why Claude cannot think on this call, or null. */
function cannotThink(request: ChatRequest, model: string): string | null {
  const choice = request.tool_choice;
  if (request.tools && request.tools.length > 0 && (choice === 'required' || typeof choice === 'object'))
    return `${model} cannot think when a tool call is forced (tool_choice): it answered without thinking.`;
  // Claude wants a tool call's thinking blocks back with its results, and Switchyard does not keep them.
  if (request.messages.at(-1)?.role === 'tool')
    return `${model} answered this tool result without thinking: the thinking blocks Claude needs back with it are not kept.`;
  return null;
}

/**
 * A request's reasoning brought within what Anthropic accepts beside thinking (the provider's
 * `fitReasoning`): the budget pinned, under `max_tokens` (and at least 1,024), `temperature` (other than
 * 1) and a `top_p` under 0.95 left out; thinking itself left out where it cannot apply. Replaces the
 * request's reasoning rather than changing it (the request is a shallow copy). Returns what changed.
 */
export function fitThinking(request: ChatRequest, model: string): string[] {
  const thinking = request.reasoning && thinkingOf(request.reasoning);
  if (!thinking) {
    delete request.reasoning;
    return [];
  }
  const refusal = cannotThink(request, model);
  if (refusal) {
    delete request.reasoning;
    return [refusal];
  }
  const notes: string[] = [];
  let budget = thinking.budget_tokens;
  const maxTokens = request.max_tokens;
  if (maxTokens !== undefined && budget >= maxTokens) {
    if (maxTokens - 1 < MIN_THINKING_BUDGET) {
      delete request.reasoning;
      return [`${model} thinks with at least ${MIN_THINKING_BUDGET} tokens, under max_tokens (${maxTokens}): it answered without thinking.`];
    }
    budget = maxTokens - 1;
    // A budget the request named (or its effort's) was cut; Anthropic's own default needs no word.
    if (budgetTokensOf(request.reasoning ?? {}) !== undefined)
      notes.push(`thinking budget lowered from ${thinking.budget_tokens} to ${budget} tokens, under max_tokens (${maxTokens}).`);
  }
  request.reasoning = { budgetTokens: budget };
  if (request.temperature !== undefined && request.temperature !== 1) {
    notes.push(`temperature left out: ${model} takes none beside thinking.`);
    delete request.temperature;
  }
  if (request.top_p !== undefined && request.top_p < MIN_TOP_P_WITH_THINKING) {
    notes.push(`top_p left out: ${model} takes ${MIN_TOP_P_WITH_THINKING} to 1 beside thinking.`);
    delete request.top_p;
  }
  return notes;
}
