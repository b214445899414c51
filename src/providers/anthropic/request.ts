import type { ChatRequest, ToolChoice, ToolDefinition } from '../../domain/chat';
import { jsonModeInstruction } from './json-mode';
import { toAnthropicConversation } from './messages';
import { thinkingOf } from './thinking';
import type { MessagesRequest, ToolChoiceParam, ToolParam } from './wire';

/** The API version every request pins, sent as `anthropic-version`. */
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * Output tokens asked for when the client gives no `max_tokens`: Anthropic requires the field, and
 * 4096 is the output ceiling of the oldest Claude 3 models, so every model accepts it.
 */
export const DEFAULT_MAX_TOKENS = 4096;

/** `${baseUrl}/v1/messages`; the base URL is the host root, e.g. `https://api.anthropic.com`. */
export function messagesUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/v1/messages`;
}

export function messagesHeaders(apiKey: string): Record<string, string> {
  return { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION };
}

function toolParam(tool: ToolDefinition): ToolParam {
  const { name, description, parameters } = tool.function;
  return {
    name,
    ...(description ? { description } : {}),
    input_schema: parameters ?? { type: 'object', properties: {} },
  };
}

/** `none` is sent as `{type:'none'}` rather than by dropping the tools, which earlier turns' tool_use blocks may still need. */
function toolChoiceParam(choice: ToolChoice): ToolChoiceParam {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  return { type: 'tool', name: choice.function.name };
}

/** Anthropic's temperature runs 0..1; OpenAI's 0..2. */
export const ANTHROPIC_MAX_TEMPERATURE = 1;

/** Values above the maximum are clamped (the pipeline has already lowered them and noted it). */
export function clampTemperature(temperature: number): number {
  return Math.min(ANTHROPIC_MAX_TEMPERATURE, Math.max(0, temperature));
}

function joinSystem(...parts: (string | undefined)[]): string | undefined {
  const present = parts.filter((part): part is string => part !== undefined && part !== '');
  return present.length > 0 ? present.join('\n\n') : undefined;
}

/**
 * The Messages API body for a chat request. Mapped: messages (see `toAnthropicConversation`),
 * `max_tokens` (default `DEFAULT_MAX_TOKENS`), `temperature` (clamped to 0..1), `top_p`, `stop` →
 * `stop_sequences` (whitespace-only ones dropped: the API refuses them), tools and `tool_choice`,
 * `user` → `metadata.user_id`, `response_format` → a system instruction (see `jsonModeInstruction`),
 * `reasoning` → `thinking` (see `thinkingOf`; without `max_tokens`, the budget plus the default is asked
 * for, so thinking leaves the answer its usual room). Not expressible, so ignored: `n`,
 * `presence_penalty`, `frequency_penalty`, `logit_bias`, `seed`, `extra`.
 */
export function toMessagesRequest(request: ChatRequest, options: { stream: boolean }): MessagesRequest {
  const conversation = toAnthropicConversation(request.messages);
  const system = joinSystem(conversation.system, jsonModeInstruction(request.response_format));
  const stops = (request.stop ?? []).filter((stop) => stop.trim() !== '');
  const tools = request.tools?.map(toolParam) ?? [];
  // Most requests ask nothing of reasoning: one test of an absent field.
  const thinking = request.reasoning === undefined ? undefined : thinkingOf(request.reasoning);
  const body: MessagesRequest = {
    model: request.model,
    max_tokens: request.max_tokens ?? (thinking ? thinking.budget_tokens + DEFAULT_MAX_TOKENS : DEFAULT_MAX_TOKENS),
    messages: conversation.messages,
    ...(system !== undefined ? { system } : {}),
    ...(stops.length > 0 ? { stop_sequences: stops } : {}),
    ...(request.temperature !== undefined ? { temperature: clampTemperature(request.temperature) } : {}),
    ...(request.top_p !== undefined ? { top_p: request.top_p } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(tools.length > 0 && request.tool_choice ? { tool_choice: toolChoiceParam(request.tool_choice) } : {}),
    ...(request.user ? { metadata: { user_id: request.user } } : {}),
    ...(options.stream ? { stream: true } : {}),
  };
  if (thinking) body.thinking = thinking;
  return body;
}
