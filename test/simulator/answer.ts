/** The provider-neutral view of a request that decides the simulated answer. */
export interface SimConversation {
  model: string;
  stream: boolean;
  /** Text of the last user message. */
  lastUserText: string;
  /** Text of a trailing tool result, when the last message is one. */
  toolResultText?: string;
  /** Tool names offered, in order. */
  tools: string[];
  /** A tool the request forces, or 'none' when tools are switched off. */
  toolChoice?: string | 'none' | 'required' | 'auto';
  json: boolean;
  maxTokens?: number;
  /** Characters of every message, for a deterministic prompt-token count. */
  promptChars: number;
  /** Tokens the model thinks with before answering: set when the request asked a reasoning model to reason. */
  reasoningTokens?: number;
}

export type SimAnswer = { kind: 'text'; text: string; finish: 'stop' | 'length' } | { kind: 'tool_call'; id: string; name: string; arguments: string };

export interface SimUsage {
  prompt: number;
  /** The answer's own tokens, without the reasoning ones (each dialect reports the two as its provider does). */
  completion: number;
  reasoning: number;
}

/**
 * What a simulated model spends reasoning when asked to (`reasoning_effort`, an Anthropic thinking budget,
 * a Gemini `thinkingBudget` other than 0), whatever the effort: tests compare the reported counts to it.
 */
export const SIM_REASONING_TOKENS = 32;

/** The text of a simulated thinking block (Anthropic returns one; the others only count the tokens). */
export function thinkingText(conversation: SimConversation): string {
  return `Thinking about: ${conversation.lastUserText}`;
}

/** Splits text into stream pieces of one word each, keeping the spaces. */
export function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [''];
}

/** Models named `sim-tool-loop...` call a tool whenever one is offered, even right after a tool result (a model that never stops calling). */
const ALWAYS_CALLS = /^sim-tool-loop/;

/**
 * Deterministic answers: a tool call when tools are offered (and not switched off) and the last turn is
 * the user's; otherwise an echo, as JSON in JSON mode. `max_tokens` cuts the words (finish `length`).
 */
export function answerFor(conversation: SimConversation): SimAnswer {
  const afterTool = conversation.toolResultText !== undefined && !ALWAYS_CALLS.test(conversation.model);
  const wantsTool = conversation.tools.length > 0 && conversation.toolChoice !== 'none' && !afterTool;
  if (wantsTool) {
    const forced = conversation.toolChoice && !['auto', 'required'].includes(conversation.toolChoice) ? conversation.toolChoice : undefined;
    const name = forced ?? conversation.tools[0] ?? 'tool';
    return { kind: 'tool_call', id: 'call_sim_1', name, arguments: JSON.stringify({ query: conversation.lastUserText }) };
  }
  const base = conversation.toolResultText !== undefined ? `Tool said: ${conversation.toolResultText}` : `Echo: ${conversation.lastUserText}`;
  const text = conversation.json ? JSON.stringify({ answer: base }) : base;
  const words = pieces(text);
  if (conversation.maxTokens !== undefined && words.length > conversation.maxTokens) {
    return { kind: 'text', text: words.slice(0, conversation.maxTokens).join(''), finish: 'length' };
  }
  return { kind: 'text', text, finish: 'stop' };
}

export function usageFor(conversation: SimConversation, answer: SimAnswer): SimUsage {
  const completionText = answer.kind === 'text' ? answer.text : answer.arguments;
  return {
    prompt: Math.max(1, Math.ceil(conversation.promptChars / 4)),
    completion: pieces(completionText).length,
    reasoning: conversation.reasoningTokens ?? 0,
  };
}
