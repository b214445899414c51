import { createHash } from 'node:crypto';
import type { ChatMessage, ChatRequest, ToolCall, ToolDefinition } from '../../domain/chat';
import { lastUserMessage } from '../../domain/chat';
import { UpstreamError } from '../../errors/upstream-error';
import { valueForSchema } from './schema-value';

/**
 * What `test-echo` (and `test-slow`) answer, deterministically, with no network:
 * - with `tools` (and `tool_choice` not `none`): a call of the forced tool, or of the tool the last
 *   user message names (else the first), arguments built from the message; with `auto` (or no
 *   `tool_choice`) a conversation that ends with tool results is answered in text instead;
 * - else text: the tool results the conversation ends with, or the last user message;
 * - with `response_format` `json_object` / `json_schema`: that text as a JSON document.
 */
export type EchoAnswer = { kind: 'text'; text: string } | { kind: 'tool_call'; call: ToolCall };

/** A message's text: its text parts joined as they are (images left out). */
export function textOf(content: ChatMessage['content'] | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** Lower case, with `_`, `-` and runs of other separators as one space: `web_search` and "web-search" read alike. */
/** The last user message's text, its text parts joined as they are. */
const lastUserText = (messages: readonly ChatMessage[]) => textOf(lastUserMessage(messages)?.content);

const normalised = (text: string) =>
  ` ${text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()} `;

/** The tool whose name the text mentions first (as a whole word, `_` / `-` / space alike), if any. */
export function toolNamedIn(tools: readonly ToolDefinition[], text: string): ToolDefinition | undefined {
  const haystack = normalised(text);
  let best: { tool: ToolDefinition; at: number } | undefined;
  for (const tool of tools) {
    const at = haystack.indexOf(normalised(tool.function.name));
    if (at >= 0 && (best === undefined || at < best.at)) best = { tool, at };
  }
  return best?.tool;
}

/** The tool messages the conversation ends with (answers to the last assistant turn's calls). */
function trailingToolResults(messages: readonly ChatMessage[]): ChatMessage[] {
  let start = messages.length;
  while (start > 0 && messages[start - 1]?.role === 'tool') start -= 1;
  return messages.slice(start);
}

/** "Tool web_search returned: ..." for each result, naming the tool from the call it answers. */
function toolResultsText(messages: readonly ChatMessage[], results: ChatMessage[]): string {
  const calls = new Map<string, string>();
  for (const message of messages) for (const call of message.tool_calls ?? []) calls.set(call.id, call.function.name);
  return results.map((result) => `Tool ${calls.get(result.tool_call_id ?? '') ?? 'result'} returned: ${textOf(result.content)}`).join('\n');
}

const endsWithToolResults = (messages: readonly ChatMessage[]) => messages[messages.length - 1]?.role === 'tool';

/** The tool to call, or null to answer in text. */
function toolToCall(request: ChatRequest): ToolDefinition | null {
  const tools = request.tools ?? [];
  const choice = request.tool_choice ?? 'auto';
  if (tools.length === 0 || choice === 'none') return null;
  if (typeof choice === 'object') {
    const forced = tools.find((tool) => tool.function.name === choice.function.name);
    if (!forced)
      throw new UpstreamError({
        kind: 'bad_request',
        provider: 'test',
        status: 400,
        message: `tool_choice names '${choice.function.name}', which is not in tools`,
      });
    return forced;
  }
  if (choice === 'auto' && endsWithToolResults(request.messages)) return null;
  return toolNamedIn(tools, lastUserText(request.messages)) ?? (tools[0] as ToolDefinition);
}

/** A call of `tool` with arguments built from the last user message; its id is derived from the call, so a replay gives the same one. */
export function buildToolCall(tool: ToolDefinition, request: Pick<ChatRequest, 'messages'>): ToolCall {
  const args = JSON.stringify(valueForSchema(tool.function.parameters ?? { type: 'object' }, lastUserText(request.messages)) ?? {});
  const digest = createHash('sha256').update(`${request.messages.length}\n${tool.function.name}\n${args}`).digest('hex');
  return { id: `call_${digest.slice(0, 24)}`, type: 'function', function: { name: tool.function.name, arguments: args } };
}

/** The text as the JSON document `response_format` asks for: `{"answer": text}`, or a value the given schema accepts. */
function asJson(text: string, format: ChatRequest['response_format']): string {
  if (format?.type === 'json_schema' && format.json_schema.schema) return JSON.stringify(valueForSchema(format.json_schema.schema, text));
  return JSON.stringify({ answer: text });
}

export function echoAnswer(request: ChatRequest): EchoAnswer {
  const { messages, tools, response_format: format } = request;
  const tool = tools && tools.length > 0 ? toolToCall(request) : null;
  if (tool) return { kind: 'tool_call', call: buildToolCall(tool, request) };
  const results = endsWithToolResults(messages) ? trailingToolResults(messages) : [];
  const text = results.length > 0 ? toolResultsText(messages, results) : lastUserText(messages);
  if (format && format.type !== 'text') return { kind: 'text', text: asJson(text, format) };
  return { kind: 'text', text };
}
