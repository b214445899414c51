import type { ChunkChoice, FinishReason } from '../../domain/chat';
import type { OutputItem, ResponseObject } from '../../schemas/responses-object';
import { functionCallItemIdOf, messageItemIdOf } from '../../services/responses/response-ids';
import { functionCallItemOf, messageItemOf } from './openai-responses';

/**
 * The typed server-sent events of a streamed response, built from chat deltas: each output item is
 * opened (`response.output_item.added`), fed (`...delta`) and closed (`...done`) in order, a text
 * message before the function calls that follow it. Every event carries its `sequence_number`.
 */

type Emit = (type: string, fields: Record<string, unknown>) => void;

interface OpenText {
  kind: 'text';
  outputIndex: number;
  text: string;
}

interface OpenCall {
  kind: 'call';
  outputIndex: number;
  /** The call's index among the delta's tool calls. */
  deltaIndex: number;
  n: number;
  callId: string;
  name: string;
  arguments: string;
}

export class ResponseStreamWriter {
  private sequence = 0;
  private readonly output: OutputItem[] = [];
  private open: OpenText | OpenCall | null = null;
  private calls = 0;
  finish: FinishReason | null = null;

  constructor(
    private readonly requestId: string,
    private readonly write: (data: string) => void,
  ) {}

  /** One event, `type` first (the SSE sink names the event after it). */
  readonly emit: Emit = (type, fields) => {
    this.write(JSON.stringify({ type, ...fields, sequence_number: this.sequence++ }));
  };

  started(response: ResponseObject): void {
    this.emit('response.created', { response });
    this.emit('response.in_progress', { response });
  }

  delta(choice: ChunkChoice): void {
    if (choice.delta.content) this.text(choice.delta.content);
    for (const call of choice.delta.tool_calls ?? []) {
      if (this.open?.kind !== 'call' || this.open.deltaIndex !== call.index) this.openCall(call.index, call.id, call.function?.name);
      const open = this.open as OpenCall;
      // A call's name comes whole with its first delta; one that came late still names the finished item.
      if (open.name === '') open.name = call.function?.name ?? '';
      const piece = call.function?.arguments ?? '';
      if (piece === '') continue;
      open.arguments += piece;
      this.emit('response.function_call_arguments.delta', { item_id: this.itemId(open), output_index: open.outputIndex, delta: piece });
    }
    if (choice.finish_reason) this.finish = choice.finish_reason;
  }

  /** Closes the item still open; the output so far, in order. */
  end(): OutputItem[] {
    this.close();
    return this.output;
  }

  private text(piece: string): void {
    if (this.open?.kind !== 'text') {
      this.close();
      this.open = { kind: 'text', outputIndex: this.output.length, text: '' };
      const item = { ...messageItemOf(this.requestId, '', []), status: 'in_progress', content: [] };
      this.emit('response.output_item.added', { output_index: this.open.outputIndex, item });
      this.emit('response.content_part.added', { ...this.textPlace(this.open), part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
    }
    this.open.text += piece;
    this.emit('response.output_text.delta', { ...this.textPlace(this.open), delta: piece, logprobs: [] });
  }

  private openCall(deltaIndex: number, id: string | undefined, name: string | undefined): void {
    this.close();
    const n = this.calls++;
    const open: OpenCall = {
      kind: 'call',
      outputIndex: this.output.length,
      deltaIndex,
      n,
      callId: id ?? `call_${this.requestId.replace(/-/g, '')}_${n}`,
      name: name ?? '',
      arguments: '',
    };
    this.open = open;
    const item = { ...functionCallItemOf(this.requestId, n, { id: open.callId, name: open.name, arguments: '' }), status: 'in_progress' };
    this.emit('response.output_item.added', { output_index: open.outputIndex, item });
  }

  private close(): void {
    const open = this.open;
    if (!open) return;
    this.open = null;
    if (open.kind === 'text') {
      const item = messageItemOf(this.requestId, open.text, []);
      const part = item.content[0];
      this.emit('response.output_text.done', { ...this.textPlace(open), text: open.text, logprobs: [] });
      this.emit('response.content_part.done', { ...this.textPlace(open), part });
      this.emit('response.output_item.done', { output_index: open.outputIndex, item });
      this.output.push(item);
      return;
    }
    const item = functionCallItemOf(this.requestId, open.n, { id: open.callId, name: open.name, arguments: open.arguments });
    this.emit('response.function_call_arguments.done', { item_id: item.id, output_index: open.outputIndex, name: open.name, arguments: open.arguments });
    this.emit('response.output_item.done', { output_index: open.outputIndex, item });
    this.output.push(item);
  }

  private itemId(open: OpenCall): string {
    return functionCallItemIdOf(this.requestId, open.n);
  }

  private textPlace(open: OpenText): { item_id: string; output_index: number; content_index: number } {
    return { item_id: messageItemIdOf(this.requestId), output_index: open.outputIndex, content_index: 0 };
  }
}
