import { createHash } from 'node:crypto';
import type { ChatMessage, ToolCall } from '../../domain/chat';
import type { OpenAiCompatibleVendor } from './vendors';

/** A message as sent: our shape with only the fields the vendor takes. */
export interface OutgoingMessage {
  role: string;
  content: ChatMessage['content'];
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

type MessageQuirks = Pick<OpenAiCompatibleVendor, 'developerRole' | 'messageNames' | 'toolCallIds'>;

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * A tool call id in the form Mistral insists on (`[a-zA-Z0-9]{9}`), derived from the original so an
 * assistant's call and the tool result answering it still match. Ids already in that form are kept.
 */
export function alphanumericId(id: string): string {
  if (/^[a-zA-Z0-9]{9}$/.test(id)) return id;
  const digest = createHash('sha256').update(id).digest();
  return Array.from(digest.subarray(0, 9), (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

function toolCallId(id: string, quirks: MessageQuirks): string {
  return quirks.toolCallIds === 'alphanumeric_9' ? alphanumericId(id) : id;
}

function outgoing(message: ChatMessage, quirks: MessageQuirks): OutgoingMessage {
  const out: OutgoingMessage = {
    role: message.role === 'developer' ? quirks.developerRole : message.role,
    content: message.content,
  };
  if (message.name !== undefined && quirks.messageNames === 'keep') out.name = message.name;
  if (message.tool_calls?.length) out.tool_calls = message.tool_calls.map((call) => ({ ...call, id: toolCallId(call.id, quirks) }));
  if (message.tool_call_id !== undefined) out.tool_call_id = toolCallId(message.tool_call_id, quirks);
  return out;
}

/** Our messages (already OpenAI-shaped) as this vendor takes them. */
export function outgoingMessages(messages: ChatMessage[], quirks: MessageQuirks): OutgoingMessage[] {
  return messages.map((message) => outgoing(message, quirks));
}
