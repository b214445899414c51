/**
 * The parts of Anthropic's Messages API (`POST /v1/messages`, `anthropic-version: 2023-06-01`) that
 * Switchyard sends and reads. Response types are loose (`unknown` where we only pass data through)
 * because the body comes from the network and is checked as it is read.
 */

export interface TextBlockParam {
  type: 'text';
  text: string;
}

export type ImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface ImageBlockParam {
  type: 'image';
  source: ImageSource;
}

export interface ToolUseBlockParam {
  type: 'tool_use';
  id: string;
  name: string;
  /** Must be an object: the API refuses any other JSON value. */
  input: Record<string, unknown>;
}

export interface ToolResultBlockParam {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
}

export type ContentBlockParam = TextBlockParam | ImageBlockParam | ToolUseBlockParam | ToolResultBlockParam;

export interface MessageParam {
  role: 'user' | 'assistant';
  content: ContentBlockParam[];
}

export interface ToolParam {
  name: string;
  description?: string;
  /** A JSON Schema whose top-level type is `object`. */
  input_schema: Record<string, unknown>;
}

export type ToolChoiceParam = { type: 'auto' } | { type: 'any' } | { type: 'tool'; name: string } | { type: 'none' };

/** Extended thinking with a budget: at least 1,024 tokens, under `max_tokens`. */
export interface ThinkingParam {
  type: 'enabled';
  budget_tokens: number;
}

export interface MessagesRequest {
  model: string;
  /** Required by Anthropic, unlike OpenAI. */
  max_tokens: number;
  messages: MessageParam[];
  system?: string;
  stop_sequences?: string[];
  /** 0..1 on Anthropic (OpenAI allows 0..2). */
  temperature?: number;
  top_p?: number;
  tools?: ToolParam[];
  tool_choice?: ToolChoiceParam;
  metadata?: { user_id: string };
  thinking?: ThinkingParam;
  stream?: boolean;
}

/** Token counts; the prompt is the sum of the three input fields. */
export interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** `thinking_tokens`: the part of `output_tokens` spent thinking (newer API versions report it). */
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** Other block types (thinking, redacted_thinking, server tools) are read as this and skipped: thinking is not returned (docs/reasoning.md). */
export interface OtherBlock {
  type: string;
}

export type ResponseBlock = TextBlock | ToolUseBlock | OtherBlock;

export interface MessagesResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ResponseBlock[];
  /** `end_turn`, `max_tokens`, `stop_sequence`, `tool_use`, `pause_turn`, `refusal`, `model_context_window_exceeded`. */
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: WireUsage;
}

/** `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, as a body or a stream event. */
export interface ErrorBody {
  type: 'error';
  error: { type: string; message: string };
}
