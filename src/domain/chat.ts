import type { Reasoning } from './reasoning';

/**
 * Provider-neutral chat types. They follow OpenAI's chat-completions shapes, the lingua franca every
 * adapter translates from and to.
 */
export type MessageRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

export type ContentPart = TextPart | ImagePart;

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: MessageRole;
  content: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema?: Record<string, unknown>; strict?: boolean; description?: string } };

/** What an adapter receives: the model is already the provider's own name (`namespace`). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  n?: number;
  stop?: string[];
  presence_penalty?: number;
  frequency_penalty?: number;
  logit_bias?: Record<string, number>;
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  response_format?: ResponseFormat;
  seed?: number;
  user?: string;
  /**
   * How much to reason before answering (domain/reasoning.ts); absent: the request said nothing of it.
   * Left out of the request a model gets when the catalog says it takes no reasoning setting.
   */
  reasoning?: Reasoning;
  /**
   * Fields the client sent that Switchyard does not interpret (e.g. `verbosity`), passed on as they
   * are to OpenAI-compatible upstreams only; other adapters ignore them.
   */
  extra?: Record<string, unknown>;
}

export interface Usage {
  prompt_tokens: number;
  /** Every output token, the reasoning ones included: they are billed as output. */
  completion_tokens: number;
  total_tokens: number;
  /** The part of `completion_tokens` the model spent reasoning, when the provider reports it; absent: none reported. */
  reasoning_tokens?: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
}

export interface ChatChoice {
  index: number;
  message: AssistantMessage;
  finish_reason: FinishReason | null;
}

/** A whole answer from a provider. */
export interface ChatResult {
  /** The provider's response id, for tracing only. */
  upstreamId: string;
  /** The model the provider says answered. */
  model: string;
  choices: ChatChoice[];
  usage: Usage;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChunkChoice {
  index: number;
  delta: { role?: 'assistant'; content?: string; tool_calls?: ToolCallDelta[] };
  finish_reason: FinishReason | null;
}

/** One streamed delta. The last chunk of a stream carries `usage` (possibly with no choices). */
export interface ChatChunk {
  choices: ChunkChoice[];
  usage?: Usage;
}

export function sumUsage(prompt: number, completion: number): Usage {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Sets the usage's `reasoning_tokens` when the provider reported some: left out at 0 or unknown, as most answers have none. */
export function withReasoningTokens(usage: Usage, reasoning: number | null | undefined): Usage {
  if (typeof reasoning === 'number' && reasoning > 0) usage.reasoning_tokens = reasoning;
  return usage;
}

/** The conversation's last user message, if it has one. */
export function lastUserMessage<M extends { role: string }>(messages: readonly M[]): M | undefined {
  // Node 20 has `findLast`, but the TypeScript lib this project targets does not list it; a loop copies nothing.
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return messages[i];
  return undefined;
}

/** The text of the conversation's last user message (its text parts, one per line): what the request asks now. */
export function lastUserText(messages: readonly { role: string; content?: ChatMessage['content'] }[]): string {
  const last = lastUserMessage(messages);
  if (!last || last.content === null || last.content === undefined) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}
