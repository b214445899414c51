import { sumUsage, withReasoningTokens, type FinishReason, type Usage } from '../../domain/chat';

/**
 * OpenAI chat-completions wire shapes as they arrive: untrusted JSON, so every field is optional and
 * read through the helpers below.
 */
export interface WireToolCall {
  index?: unknown;
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

export interface WireMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: unknown;
}

/** A `chat.completion` or a `chat.completion.chunk`. */
export interface WireCompletion {
  id?: unknown;
  model?: unknown;
  choices?: unknown;
  usage?: unknown;
  /** Groq's own place for usage on a stream's last chunk. */
  x_groq?: { usage?: unknown } | null;
  error?: unknown;
  object?: unknown;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const stringOr = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);

const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** `completion_tokens_details.reasoning_tokens`: the part of the completion tokens a reasoning model spent thinking. */
function reasoningTokens(raw: Record<string, unknown>): number | undefined {
  const details = raw.completion_tokens_details;
  return isRecord(details) ? count(details.reasoning_tokens) : undefined;
}

function readUsage(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const prompt = count(raw.prompt_tokens);
  const completion = count(raw.completion_tokens);
  if (prompt === undefined && completion === undefined) return undefined;
  const usage = sumUsage(prompt ?? 0, completion ?? 0);
  usage.total_tokens = count(raw.total_tokens) ?? usage.total_tokens;
  return withReasoningTokens(usage, reasoningTokens(raw));
}

/** Usage from `usage`, else from Groq's `x_groq.usage`; undefined when the payload has none (or null). */
export function usageOf(payload: WireCompletion): Usage | undefined {
  return readUsage(payload.usage) ?? readUsage(payload.x_groq?.usage);
}

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  eos: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  length: 'length',
  max_tokens: 'length',
  // Mistral: the context window ran out.
  model_length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  tool_use: 'tool_calls',
  content_filter: 'content_filter',
};

/**
 * Our finish reason for a wire one. Unknown reasons read as `stop`; `stop` after tool calls reads as
 * `tool_calls`, since some servers (Ollama, vLLM parsers) say `stop` when the answer is a tool call.
 */
export function finishReasonOf(raw: unknown, hadToolCalls: boolean): FinishReason | null {
  if (typeof raw !== 'string' || raw === '') return null;
  const reason = FINISH_REASONS[raw] ?? 'stop';
  return reason === 'stop' && hadToolCalls ? 'tool_calls' : reason;
}

/**
 * Text of a message's content: a string, or the text parts of an array (Mistral's reasoning models
 * answer with `text` and `thinking` chunks; the thinking is not part of the answer).
 */
export function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.filter(isRecord).flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []));
  return texts.length > 0 ? texts.join('') : null;
}

/** Tool call arguments as the JSON text clients expect (a few servers send an object). */
export function argumentsText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  return raw === undefined || raw === null ? undefined : JSON.stringify(raw);
}
