import type { AssistantMessage, ChatChoice, ChatChunk, ToolCall, ToolCallDelta, Usage } from '../domain/chat';
import { countTokens } from '../text/token-count';

interface ChoiceParts {
  content: string;
  toolCalls: ToolCall[];
  finish: ChatChoice['finish_reason'];
}

export const ESTIMATED_USAGE_WARNING = 'The provider reported no usage; token counts are estimated.';

/** Rebuilds the whole answer from streamed deltas, for the log and the conversation history. */
export class StreamAssembler {
  private readonly parts = new Map<number, ChoiceParts>();
  usage: Usage | undefined;

  add(chunk: ChatChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    for (const choice of chunk.choices) {
      const parts = this.partsOf(choice.index);
      parts.content += choice.delta.content ?? '';
      // Most deltas carry text alone: no array is made for tool calls they do not have.
      const toolCalls = choice.delta.tool_calls;
      if (toolCalls) this.addToolCalls(parts, toolCalls);
      if (choice.finish_reason) parts.finish = choice.finish_reason;
    }
  }

  choices(): ChatChoice[] {
    const entries = [...this.parts];
    if (entries.length > 1) entries.sort(([a], [b]) => a - b);
    return entries.map(([index, parts]) => choiceOf(index, parts));
  }

  /** The usage the upstream reported, or when it reported none, counted from the prompt's tokens and the answer. */
  usageOrEstimate(promptTokens: () => number): { usage: Usage; estimated: boolean } {
    if (this.usage && this.usage.total_tokens > 0) return { usage: this.usage, estimated: false };
    const completion = countTokens(this.text());
    const prompt = promptTokens();
    return { usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }, estimated: true };
  }

  text(): string {
    return [...this.parts.values()].map((parts) => parts.content).join('');
  }

  private addToolCalls(parts: ChoiceParts, deltas: ToolCallDelta[]): void {
    for (const delta of deltas) {
      const call = (parts.toolCalls[delta.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (delta.id) call.id = delta.id;
      call.function.name += delta.function?.name ?? '';
      call.function.arguments += delta.function?.arguments ?? '';
    }
  }

  private partsOf(index: number): ChoiceParts {
    let parts = this.parts.get(index);
    if (!parts) {
      parts = { content: '', toolCalls: [], finish: null };
      this.parts.set(index, parts);
    }
    return parts;
  }
}

/** One choice's parts as its whole answer; `tool_calls` set only when there are some (after `content`, as JSON shows them). */
function choiceOf(index: number, parts: ChoiceParts): ChatChoice {
  const hasCalls = parts.toolCalls.length > 0;
  const message: AssistantMessage = { role: 'assistant', content: parts.content === '' && hasCalls ? null : parts.content };
  if (hasCalls) message.tool_calls = parts.toolCalls.filter(Boolean);
  return { index, message, finish_reason: parts.finish };
}

/** The text a log shows for an answer: the first choice's content, or its tool calls. */
export function responseTextOf(choices: ChatChoice[]): string {
  const message = choices[0]?.message;
  if (!message) return '';
  if (message.content) return message.content;
  return (message.tool_calls ?? []).map((call) => `${call.function.name}(${call.function.arguments})`).join('\n');
}
