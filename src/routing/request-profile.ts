import type { ChatMessage, ChatRequest } from '../domain/chat';
import { countTokens } from '../text/token-count';

/** What routing needs to know about a request. */
export interface RequestProfile {
  promptTokens: number;
  /** Completion tokens expected, for the cost estimate. */
  expectedCompletionTokens: number;
  needs: { functions: boolean; vision: boolean; json: boolean };
  /** A quality-profile category the prompt looks like, or null for the overall figure. */
  category: string | null;
}

/** Completion length assumed when the request sets no `max_tokens`. */
const DEFAULT_COMPLETION_TOKENS = 500;
/** Tokens a message costs beyond its text (role and separators), as OpenAI counts them. */
const PER_MESSAGE_OVERHEAD = 4;

function textOf(message: ChatMessage): string {
  if (message.content === null) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}

/** Keyword signals of the catalog's categories; the learned router replaces this guess. */
const CATEGORY_SIGNALS: ReadonlyArray<{ category: string; pattern: RegExp }> = [
  { category: 'code', pattern: /```|\b(function|class|def|const|import|stack trace|exception|compile|regex|sql|typescript|python|javascript)\b/i },
  { category: 'math', pattern: /\b(solve|equation|integral|derivative|probability|theorem|prove|calculate)\b|\d+\s*[-+*/^=]\s*\d+/i },
  { category: 'writing', pattern: /\b(write|rewrite|poem|story|essay|email|letter|summari[sz]e|draft)\b/i },
  { category: 'law', pattern: /\b(law|legal|contract|court|statute|liability)\b/i },
  { category: 'health', pattern: /\b(symptom|diagnos\w*|medicine|medical|disease|dose)\b/i },
  { category: 'reasoning', pattern: /\b(why|explain|reason|logic|puzzle|step by step)\b/i },
];

function guessCategory(text: string): string | null {
  return CATEGORY_SIGNALS.find(({ pattern }) => pattern.test(text))?.category ?? null;
}

export function profileRequest(request: ChatRequest): RequestProfile {
  const texts = request.messages.map(textOf);
  const promptTokens = texts.reduce((sum, text) => sum + countTokens(text) + PER_MESSAGE_OVERHEAD, 0);
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
  return {
    promptTokens,
    expectedCompletionTokens: request.max_tokens ?? DEFAULT_COMPLETION_TOKENS,
    needs: {
      functions: (request.tools?.length ?? 0) > 0,
      vision: request.messages.some((m) => Array.isArray(m.content) && m.content.some((part) => part.type === 'image_url')),
      json: request.response_format !== undefined && request.response_format.type !== 'text',
    },
    category: lastUser ? guessCategory(textOf(lastUser)) : null,
  };
}
