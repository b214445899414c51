import type { ChatMessage, ContentPart, ImagePart, ToolCall } from '../../domain/chat';
import { UpstreamError } from '../../errors/upstream-error';
import type { ContentBlockParam, ImageBlockParam, MessageParam, TextBlockParam, ToolUseBlockParam } from './wire';

export interface AnthropicConversation {
  /** Every system and developer message, in order, joined by a blank line. */
  system: string | undefined;
  /** Alternating user/assistant turns. */
  messages: MessageParam[];
}

const DATA_URL = /^data:([^;,]+)((?:;[^;,]*)*),(.*)$/s;

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** `data:` URLs become base64 sources (percent-encoded ones are re-encoded); anything else is a URL source. */
export function imageBlock(part: ImagePart): ImageBlockParam {
  const url = part.image_url.url;
  const match = DATA_URL.exec(url);
  if (!match) return { type: 'image', source: { type: 'url', url } };
  const [, mediaType = '', params = '', payload = ''] = match;
  const data = params.split(';').includes('base64') ? payload : Buffer.from(decodeURIComponent(payload), 'utf8').toString('base64');
  return { type: 'image', source: { type: 'base64', media_type: mediaType, data } };
}

/** Empty text blocks are dropped: the API refuses them. */
function contentBlocks(content: ChatMessage['content']): ContentBlockParam[] {
  const parts: ContentPart[] = typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []);
  return parts.flatMap((part): ContentBlockParam[] => {
    if (part.type === 'image_url') return [imageBlock(part)];
    return part.text === '' ? [] : [{ type: 'text', text: part.text } satisfies TextBlockParam];
  });
}

/** Tool arguments arrive as a JSON string; Anthropic wants the object. An empty string means no arguments. */
function toolUseBlock(call: ToolCall): ToolUseBlockParam {
  let input: unknown = {};
  try {
    if (call.function.arguments.trim() !== '') input = JSON.parse(call.function.arguments);
  } catch {
    input = undefined;
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new UpstreamError({
      kind: 'bad_request',
      provider: 'anthropic',
      message: `The arguments of tool call ${call.id} are not a JSON object, which Anthropic requires.`,
    });
  }
  return { type: 'tool_use', id: call.id, name: call.function.name, input: input as Record<string, unknown> };
}

function turnOf(message: ChatMessage): MessageParam | null {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: contentBlocks(message.content) };
    case 'assistant':
      return { role: 'assistant', content: [...contentBlocks(textOf(message.content)), ...(message.tool_calls ?? []).map(toolUseBlock)] };
    case 'tool':
      return { role: 'user', content: [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: textOf(message.content) }] };
    default:
      return null;
  }
}

/**
 * OpenAI-style messages as Anthropic wants them: system and developer messages lifted into the
 * top-level `system`; tool results as `tool_result` blocks in a user turn; consecutive turns of one
 * role merged (so several tool results, or a tool result and the user's next words, share one turn);
 * turns left without content dropped, since the API refuses empty content.
 */
export function toAnthropicConversation(messages: ChatMessage[]): AnthropicConversation {
  const system: string[] = [];
  const turns: MessageParam[] = [];
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOf(message.content);
      if (text !== '') system.push(text);
      continue;
    }
    const turn = turnOf(message);
    if (!turn || turn.content.length === 0) continue;
    const previous = turns.at(-1);
    if (previous?.role === turn.role) previous.content.push(...turn.content);
    else turns.push(turn);
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: turns };
}
