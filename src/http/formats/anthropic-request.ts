import type { ChatMessage, ContentPart, ToolCall, ToolChoice, ToolDefinition } from '../../domain/chat';
import type { CompletionRequest } from '../../schemas/chat-completions';
import type { AnthropicContentBlock, AnthropicMessageParam, MessagesRequest } from '../../schemas/anthropic-messages';

/**
 * Anthropic's Messages request as the chat request every completion job takes: the inverse of the
 * worker's Anthropic adapter (`providers/anthropic/messages.ts`), so a Claude model named here gets
 * back, in substance, the body the client sent. Pure: the schema has checked the shapes already.
 */

type Block<T extends AnthropicContentBlock['type']> = Extract<AnthropicContentBlock, { type: T }>;

const blocksOf = (content: AnthropicMessageParam['content']): AnthropicContentBlock[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : content;

function imagePart(block: Block<'image'>): ContentPart {
  const { source } = block;
  const url = source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
  return { type: 'image_url', image_url: { url } };
}

function toolResultMessage(block: Block<'tool_result'>): ChatMessage {
  const content = typeof block.content === 'string' ? block.content : (block.content ?? []).map((part) => part.text).join('');
  return { role: 'tool', tool_call_id: block.tool_use_id, content };
}

/**
 * A user turn: its tool results first, each as a `tool` message (Anthropic puts them first in the turn,
 * OpenAI wants them right after the assistant's calls), then its text and images as one user message.
 */
function userMessages(content: AnthropicMessageParam['content']): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const results: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  for (const block of content) {
    if (block.type === 'tool_result') results.push(toolResultMessage(block));
    else if (block.type === 'image') parts.push(imagePart(block));
    else if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    // Other blocks in a user turn are refused by the route before this runs (see misplacedBlock).
  }
  return parts.length > 0 ? [...results, { role: 'user', content: parts }] : results;
}

function toolCallOf(block: Block<'tool_use'>): ToolCall {
  return { id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } };
}

/** An assistant turn: its text joined, its `tool_use` blocks as tool calls; thinking blocks are dropped. */
function assistantMessage(content: AnthropicMessageParam['content']): ChatMessage {
  const blocks = blocksOf(content);
  const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const calls = blocks.flatMap((block) => (block.type === 'tool_use' ? [toolCallOf(block)] : []));
  return { role: 'assistant', content: text === '' && calls.length > 0 ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

function systemMessage(system: MessagesRequest['system'] | AnthropicMessageParam['content']): ChatMessage[] {
  if (system === undefined) return [];
  const text = typeof system === 'string' ? system : system.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n');
  return text === '' ? [] : [{ role: 'system', content: text }];
}

function messagesOf(message: AnthropicMessageParam): ChatMessage[] {
  if (message.role === 'user') return userMessages(message.content);
  if (message.role === 'system') return systemMessage(message.content);
  return [assistantMessage(message.content)];
}

function toolDefinition(tool: NonNullable<MessagesRequest['tools']>[number]): ToolDefinition {
  return { type: 'function', function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.input_schema } };
}

function toolChoiceOf(choice: NonNullable<MessagesRequest['tool_choice']>): ToolChoice {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
  }
}

/**
 * Mapped: `system` → a system message; user turns (tool results → `tool` messages, images → image parts);
 * assistant turns (`tool_use` → tool calls); `tools`, `tool_choice` (`any` → `required`); `max_tokens`,
 * `temperature`, `top_p`, `stop_sequences` → `stop`, `metadata.user_id` → `user`, `stream`,
 * `output_config.format` → `response_format` (JSON schema); `system` turns → system messages. Dropped:
 * `top_k` and `disable_parallel_tool_use`, which a routed model may not support.
 */
export function chatRequestOf(body: MessagesRequest): CompletionRequest {
  const messages = [...systemMessage(body.system), ...body.messages.flatMap(messagesOf)];
  return {
    model: body.model,
    messages,
    max_tokens: body.max_tokens,
    stream: body.stream,
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
    ...(body.stop_sequences && body.stop_sequences.length > 0 ? { stop: body.stop_sequences } : {}),
    ...(body.tools && body.tools.length > 0 ? { tools: body.tools.map(toolDefinition) } : {}),
    ...(body.tool_choice && body.tools && body.tools.length > 0 ? { tool_choice: toolChoiceOf(body.tool_choice) } : {}),
    ...(body.metadata?.user_id ? { user: body.metadata.user_id } : {}),
    ...(body.output_config?.format
      ? { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: body.output_config.format.schema } } }
      : {}),
  };
}

/** Which blocks each role may send, as Anthropic allows them. */
const ALLOWED_BLOCKS: Readonly<Record<AnthropicMessageParam['role'], readonly AnthropicContentBlock['type'][]>> = {
  user: ['text', 'image', 'tool_result'],
  assistant: ['text', 'tool_use', 'thinking', 'redacted_thinking'],
  system: ['text'],
};

/** A block the other side of the conversation cannot send, as a path for the 400 (e.g. `messages.0.content.1`); null when all fit. */
export function misplacedBlock(body: Pick<MessagesRequest, 'messages'>): { param: string; message: string } | null {
  for (const [i, message] of body.messages.entries()) {
    if (typeof message.content === 'string') continue;
    for (const [j, block] of message.content.entries()) {
      const wrong = !ALLOWED_BLOCKS[message.role].includes(block.type);
      if (wrong) return { param: `messages.${i}.content.${j}`, message: `A ${message.role} message cannot hold a '${block.type}' block.` };
    }
  }
  return null;
}
