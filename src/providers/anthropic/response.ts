import { sumUsage, withReasoningTokens, type ChatResult, type FinishReason, type ToolCall, type Usage } from '../../domain/chat';
import { UpstreamError } from '../../errors/upstream-error';
import type { MessagesResponse, ResponseBlock, TextBlock, ToolUseBlock, WireUsage } from './wire';

const FINISH_BY_STOP_REASON: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  /** A server tool paused a long turn; the text so far is a complete answer to relay. */
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** Anthropic's `stop_reason` as an OpenAI finish reason; an unknown reason counts as `stop`, none as null. */
export function finishReasonFor(stopReason: string | null | undefined): FinishReason | null {
  if (stopReason === null || stopReason === undefined) return null;
  return FINISH_BY_STOP_REASON[stopReason] ?? 'stop';
}

/** Prompt tokens are the input tokens plus those written to and read from the prompt cache. */
export function promptTokensOf(usage: WireUsage | undefined): number {
  return (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0);
}

/** Output tokens count the thinking ones (Anthropic bills them as output); newer API versions also say how many. */
export function usageOf(usage: WireUsage | undefined): Usage {
  return withReasoningTokens(sumUsage(promptTokensOf(usage), usage?.output_tokens ?? 0), usage?.output_tokens_details?.thinking_tokens);
}

const isText = (block: ResponseBlock): block is TextBlock => block.type === 'text';
const isToolUse = (block: ResponseBlock): block is ToolUseBlock => block.type === 'tool_use';

/** A `tool_use` block as an OpenAI tool call; Anthropic's block id is kept as the call id. */
export function toolCallOf(block: ToolUseBlock): ToolCall {
  return { id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } };
}

function assertMessage(body: unknown): asserts body is MessagesResponse {
  const candidate = body as Partial<MessagesResponse> | null;
  if (typeof candidate !== 'object' || candidate === null || !Array.isArray(candidate.content)) {
    throw new UpstreamError({ kind: 'invalid_response', provider: 'anthropic', message: 'Anthropic sent a body that is not a message' });
  }
}

/**
 * A Messages API response as a chat result: text blocks joined into `content` (null when there are
 * only tool calls), `tool_use` blocks as `tool_calls`; thinking and server-tool blocks are skipped.
 */
export function toChatResult(body: unknown): ChatResult {
  assertMessage(body);
  const text = body.content
    .filter(isText)
    .map((block) => block.text)
    .join('');
  const toolCalls = body.content.filter(isToolUse).map(toolCallOf);
  const content = text === '' && toolCalls.length > 0 ? null : text;
  return {
    upstreamId: body.id,
    model: body.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: finishReasonFor(body.stop_reason) ?? 'stop',
      },
    ],
    usage: usageOf(body.usage),
  };
}
