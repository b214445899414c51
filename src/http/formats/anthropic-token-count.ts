import type { CompletionRequest } from '../../schemas/chat-completions';
import type { CountTokensRequest } from '../../schemas/anthropic-messages';
import { conversationTokens } from '../../text/token-count';
import { chatRequestOf } from './anthropic-request';

/** What of a message is read as prompt text: its text parts and its tool calls' arguments (images are not counted). */
function textsOf(message: CompletionRequest['messages'][number]): string[] {
  const content =
    typeof message.content === 'string' ? [message.content] : (message.content ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : []));
  const calls = (message.tool_calls ?? []).map((call) => `${call.function.name} ${call.function.arguments}`);
  return [...content, ...calls];
}

/** Input tokens of a Messages request, counted as the router counts a prompt, plus the tool definitions as JSON. */
export function inputTokensOf(body: CountTokensRequest): number {
  const request = chatRequestOf({ ...body, max_tokens: 1, stream: false });
  const texts = request.messages.map((message) => textsOf(message).join('\n'));
  const tools = request.tools ? [JSON.stringify(request.tools)] : [];
  return conversationTokens([...texts, ...tools]);
}
