import type { FinishReason, ToolCall, Usage } from '../../domain/chat';
import type { CompletionAnswer, FinishedAnswer } from '../../domain/completion';
import type { AnthropicResponseBlock, MessageResponse, StopReason } from '../../schemas/anthropic-messages';
import { withJsonField } from '../../formats/completion-metadata';

/** Anthropic's message object of a completion's domain result. */

/**
 * The inverse of the Anthropic adapter's stop-reason table. `stop` covers both `end_turn` and
 * `stop_sequence` there, and models of other providers do not say which, so it is always `end_turn`.
 */
const STOP_REASON_BY_FINISH: Readonly<Record<FinishReason, StopReason>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

export function stopReasonOf(finish: FinishReason | null | undefined): StopReason | null {
  return finish ? STOP_REASON_BY_FINISH[finish] : null;
}

/** `msg_` then the request id, so the message names its log. */
export function messageIdOf(requestId: string): string {
  return `msg_${requestId}`;
}

/** Output tokens include the thinking ones, as Anthropic counts them; `output_tokens_details` only when the model reported some. */
export function anthropicUsageOf(usage: Usage): MessageResponse['usage'] {
  const wire: MessageResponse['usage'] = {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  if (usage.reasoning_tokens !== undefined) wire.output_tokens_details = { thinking_tokens: usage.reasoning_tokens };
  return wire;
}

/** Anthropic wants tool input as an object; arguments that are not a JSON object are kept under `arguments`. */
export function toolInputOf(call: ToolCall): Record<string, unknown> {
  try {
    const input: unknown = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
    if (typeof input === 'object' && input !== null && !Array.isArray(input)) return input as Record<string, unknown>;
  } catch {
    // Not JSON: kept as text below.
  }
  return { arguments: call.function.arguments };
}

function contentOf(result: CompletionAnswer): AnthropicResponseBlock[] {
  const message = result.choices[0]?.message;
  if (!message) return [];
  const text: AnthropicResponseBlock[] = message.content ? [{ type: 'text', text: message.content }] : [];
  const tools = (message.tool_calls ?? []).map((call): AnthropicResponseBlock => ({
    type: 'tool_use',
    id: call.id,
    name: call.function.name,
    input: toolInputOf(call),
  }));
  return [...text, ...tools];
}

/** The whole message but Switchyard's `metadata`. */
export function anthropicMessageBody(result: CompletionAnswer): Omit<MessageResponse, 'metadata'> {
  return {
    id: messageIdOf(result.requestId),
    type: 'message',
    role: 'assistant',
    model: result.model.model,
    content: contentOf(result),
    stop_reason: stopReasonOf(result.choices[0]?.finish_reason) ?? 'end_turn',
    stop_sequence: null,
    usage: anthropicUsageOf(result.usage),
  };
}

/** The whole message as JSON text; Switchyard's `metadata` is an extra top-level field (as the worker serialised it), which the SDK passes through. */
export function anthropicMessageJson({ answer, metadata }: FinishedAnswer): string {
  return withJsonField(JSON.stringify(anthropicMessageBody(answer)), 'metadata', metadata);
}
