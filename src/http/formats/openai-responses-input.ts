import type { ContentPart } from '../../domain/chat';
import { ApiError } from '../../errors/api-error';
import type { CompletionRequest } from '../../schemas/chat-completions';
import type { ResolvedItem, ResponsesContentPart, ResponsesRequest } from '../../schemas/responses';

type ChatMessage = CompletionRequest['messages'][number];
type FunctionCallItem = Extract<ResolvedItem, { type: 'function_call' }>;
type FunctionOutputItem = Extract<ResolvedItem, { type: 'function_call_output' }>;

function textOf(part: ResponsesContentPart): string | null {
  if (part.type === 'input_text' || part.type === 'output_text') return part.text;
  if (part.type === 'refusal') return part.refusal;
  return null;
}

/** Text parts become chat text parts; images (user turns only, as OpenAI allows) image parts. */
function chatContentOf(item: Extract<ResolvedItem, { type: 'message' }>, param: string): string | ContentPart[] {
  if (typeof item.content === 'string') return item.content;
  const hasImage = item.content.some((part) => part.type === 'input_image');
  if (!hasImage) return item.content.map((part) => textOf(part) ?? '').join('');
  if (item.role !== 'user') throw new ApiError('invalid_value', `Invalid value for '${param}': only user messages may carry input_image parts.`, param);
  return item.content.map((part): ContentPart => {
    if (part.type !== 'input_image') return { type: 'text', text: textOf(part) ?? '' };
    return { type: 'image_url', image_url: { url: part.image_url ?? '', ...(part.detail ? { detail: part.detail } : {}) } };
  });
}

function toolCallOf(item: FunctionCallItem): NonNullable<ChatMessage['tool_calls']>[number] {
  return { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
}

function toolOutputOf(item: FunctionOutputItem, param: string): string {
  if (typeof item.output === 'string') return item.output;
  if (item.output.some((part) => part.type === 'input_image')) {
    throw new ApiError('invalid_value', `Invalid value for '${param}': function outputs may only hold input_text parts here.`, param);
  }
  return item.output.map((part) => (part.type === 'input_text' ? part.text : '')).join('');
}

/**
 * Responses items as chat messages: consecutive function calls (and the assistant text before them)
 * make one assistant message with `tool_calls`; each function output a `tool` message.
 */
export function chatMessagesOf(items: ResolvedItem[], instructions: string | null | undefined): ChatMessage[] {
  const messages: ChatMessage[] = instructions ? [{ role: 'system', content: instructions }] : [];
  items.forEach((item, i) => {
    const param = `input[${i}]`;
    if (item.type === 'message') {
      messages.push({ role: item.role, content: chatContentOf(item, `${param}.content`) });
      return;
    }
    if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: toolOutputOf(item, `${param}.output`) });
      return;
    }
    const last = messages.at(-1);
    if (last?.role === 'assistant') {
      last.tool_calls = [...(last.tool_calls ?? []), toolCallOf(item)];
    } else {
      messages.push({ role: 'assistant', content: null, tool_calls: [toolCallOf(item)] });
    }
  });
  return messages;
}

function responseFormatOf(format: NonNullable<ResponsesRequest['text']>['format']): CompletionRequest['response_format'] {
  if (!format || format.type !== 'json_schema') return format;
  const { name, schema, description, strict } = format;
  return {
    type: 'json_schema',
    json_schema: { name, schema, ...(description !== undefined ? { description } : {}), ...(strict !== undefined ? { strict } : {}) },
  };
}

/** Fields passed on as they are to OpenAI-compatible upstreams (as chat completions pass unknown fields). */
function passThrough(request: ResponsesRequest): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    parallel_tool_calls: request.parallel_tool_calls ?? undefined,
    verbosity: request.text?.verbosity ?? undefined,
    safety_identifier: request.safety_identifier,
    prompt_cache_key: request.prompt_cache_key,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** A Responses request as the chat completion request the completion jobs run. */
export function chatRequestOf(request: ResponsesRequest, items: ResolvedItem[]): CompletionRequest {
  const chat: CompletionRequest = {
    messages: chatMessagesOf(items, request.instructions),
    stream: request.stream === true,
    ...passThrough(request),
  };
  if (request.model !== undefined) chat.model = request.model;
  if (request.temperature !== undefined && request.temperature !== null) chat.temperature = request.temperature;
  if (request.top_p !== undefined && request.top_p !== null) chat.top_p = request.top_p;
  if (request.max_output_tokens !== undefined && request.max_output_tokens !== null) chat.max_completion_tokens = request.max_output_tokens;
  if (request.user !== undefined) chat.user = request.user;
  // Chat's own field, which the intake reads as the request's reasoning (docs/reasoning.md).
  if (request.reasoning?.effort) chat.reasoning_effort = request.reasoning.effort;
  if (request.tools && request.tools.length > 0) {
    chat.tools = request.tools.map(({ name, description, parameters, strict }) => ({
      type: 'function' as const,
      function: { name, ...(description ? { description } : {}), ...(parameters ? { parameters } : {}), ...(strict !== undefined ? { strict } : {}) },
    }));
  }
  if (request.tool_choice !== undefined) {
    chat.tool_choice = typeof request.tool_choice === 'string' ? request.tool_choice : { type: 'function', function: { name: request.tool_choice.name } };
  }
  const format = responseFormatOf(request.text?.format);
  if (format) chat.response_format = format;
  return chat;
}
