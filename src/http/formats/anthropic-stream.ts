import type { CompletionSink } from '../../domain/completion-sink';
import type { ChunkChoice, FinishReason, ToolCallDelta } from '../../domain/chat';
import type { FinishedAnswer } from '../../domain/completion';
import { errorBodyOf } from '../../errors/api-error';
import { anthropicMessageJson, anthropicUsageOf, messageIdOf, stopReasonOf } from './anthropic-message';
import { SerialisedBody, type WireSink } from '../../formats/wire-sink';
import { withJsonField } from '../../formats/completion-metadata';

/** What the formatter knows of the request it answers. */
export interface AnthropicFormatOptions {
  stream: boolean;
}

type OpenBlock = { kind: 'text' } | { kind: 'tool_use'; call: number } | null;

/**
 * Anthropic's stream of one message: `message_start`, `ping`, then per content block
 * `content_block_start`, its deltas (`text_delta`, `input_json_delta`) and `content_block_stop`, then
 * `message_delta` (stop reason and usage) and `message_stop`. Domain deltas are OpenAI-shaped, so text
 * and tool-call deltas open and close blocks as they alternate. Usage is only known at the end: the
 * `message_start` counts 0 and the `message_delta` carries the whole usage (the SDK takes both counts
 * from it) and Switchyard's `metadata`.
 */
class MessageStreamWriter {
  private started = false;
  private index = -1;
  private open: OpenBlock = null;
  private finish: FinishReason | null = null;

  constructor(
    private readonly wire: WireSink,
    private readonly requestId: string,
  ) {}

  private send(event: Record<string, unknown>): void {
    this.wire.chunk(JSON.stringify(event));
  }

  start(model: string): void {
    if (this.started) return;
    this.started = true;
    const message = {
      id: messageIdOf(this.requestId),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: anthropicUsageOf({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }),
    };
    this.send({ type: 'message_start', message });
    this.send({ type: 'ping' });
  }

  private openBlock(block: NonNullable<OpenBlock>, contentBlock: Record<string, unknown>): void {
    this.close();
    this.index += 1;
    this.open = block;
    this.send({ type: 'content_block_start', index: this.index, content_block: contentBlock });
  }

  close(): void {
    if (this.open === null) return;
    this.send({ type: 'content_block_stop', index: this.index });
    this.open = null;
  }

  private text(text: string): void {
    if (text === '') return;
    if (this.open?.kind !== 'text') this.openBlock({ kind: 'text' }, { type: 'text', text: '' });
    this.send({ type: 'content_block_delta', index: this.index, delta: { type: 'text_delta', text } });
  }

  private toolCall(delta: ToolCallDelta): void {
    const continues = this.open?.kind === 'tool_use' && this.open.call === delta.index;
    if (!continues) {
      const id = delta.id ?? `toolu_${this.requestId.replace(/-/g, '')}_${delta.index}`;
      this.openBlock({ kind: 'tool_use', call: delta.index }, { type: 'tool_use', id, name: delta.function?.name ?? '', input: {} });
    }
    const partial = delta.function?.arguments ?? '';
    if (partial !== '') this.send({ type: 'content_block_delta', index: this.index, delta: { type: 'input_json_delta', partial_json: partial } });
  }

  /** Only the first choice: the Messages API has no `n`. */
  delta(model: string, choices: ChunkChoice[]): void {
    const choice = choices.find((c) => c.index === 0);
    if (!choice) return;
    this.start(model);
    this.text(choice.delta.content ?? '');
    for (const call of choice.delta.tool_calls ?? []) this.toolCall(call);
    this.finish = choice.finish_reason ?? this.finish;
  }

  end({ answer, metadata }: FinishedAnswer): void {
    this.start(answer.model.model);
    this.close();
    const usage = anthropicUsageOf(answer.usage);
    const delta = { type: 'message_delta', delta: { stop_reason: stopReasonOf(this.finish) ?? 'end_turn', stop_sequence: null }, usage };
    // Switchyard's metadata last, as the worker serialised it.
    this.wire.chunk(withJsonField(JSON.stringify(delta), 'metadata', metadata));
    this.send({ type: 'message_stop' });
  }
}

/**
 * A completion written as Anthropic's Messages API: one `message` body, or its event stream. Plugin
 * steps are SSE comments (`: step {...}`), which SSE clients skip; an error after the stream started is
 * one `event: error` (the wire sink writes it in Anthropic's shape).
 */
export function anthropicMessagesSink(wire: WireSink, identity: { requestId: string }, { stream }: AnthropicFormatOptions): CompletionSink {
  const writer = new MessageStreamWriter(wire, identity.requestId);
  return {
    event: (event) => {
      if (!stream) return;
      if (event.type === 'step') return wire.comment(`step ${JSON.stringify(event.step)}`);
      writer.delta(event.model, event.choices);
    },
    done: (finished) => {
      if (!stream) return wire.done(SerialisedBody.ofText(anthropicMessageJson(finished)));
      writer.end(finished);
      wire.done(undefined);
    },
    error: (failure) => {
      wire.error({ status: failure.status, body: errorBodyOf(failure), headers: failure.headers });
    },
  };
}
