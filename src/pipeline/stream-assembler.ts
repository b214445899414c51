import type { ChatChoice, ChatChunk, ToolCall, Usage } from '../domain/chat';

interface ChoiceParts {
  content: string;
  toolCalls: ToolCall[];
  finish: ChatChoice['finish_reason'];
}

/** Rebuilds the whole answer from streamed deltas, for the log and the conversation history. */
export class StreamAssembler {
  private readonly parts = new Map<number, ChoiceParts>();
  usage: Usage | undefined;

  add(chunk: ChatChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    for (const choice of chunk.choices) {
      const parts = this.partsOf(choice.index);
      parts.content += choice.delta.content ?? '';
      for (const delta of choice.delta.tool_calls ?? []) {
        const call = (parts.toolCalls[delta.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
        if (delta.id) call.id = delta.id;
        call.function.name += delta.function?.name ?? '';
        call.function.arguments += delta.function?.arguments ?? '';
      }
      if (choice.finish_reason) parts.finish = choice.finish_reason;
    }
  }

  choices(): ChatChoice[] {
    return [...this.parts.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, parts]) => ({
        index,
        message: {
          role: 'assistant' as const,
          content: parts.content === '' && parts.toolCalls.length > 0 ? null : parts.content,
          ...(parts.toolCalls.length > 0 ? { tool_calls: parts.toolCalls.filter(Boolean) } : {}),
        },
        finish_reason: parts.finish,
      }));
  }

  text(): string {
    return [...this.parts.values()].map((parts) => parts.content).join('');
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

/** The text a log shows for an answer: the first choice's content, or its tool calls. */
export function responseTextOf(choices: ChatChoice[]): string {
  const message = choices[0]?.message;
  if (!message) return '';
  if (message.content) return message.content;
  return (message.tool_calls ?? []).map((call) => `${call.function.name}(${call.function.arguments})`).join('\n');
}
