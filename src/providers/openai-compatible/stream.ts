import { sumUsage, type ChatChunk, type ChunkChoice, type ToolCallDelta, type Usage } from '../../domain/chat';
import { UpstreamError } from '../../errors/upstream-error';
import { streamCut, type SseEvent, type StreamTranslator } from '../http/sse';
import { errorInPayload } from './errors';
import { argumentsText, contentText, finishReasonOf, isRecord, usageOf, type WireCompletion, type WireToolCall } from './wire';
import type { OpenAiCompatibleVendor } from './vendors';

/**
 * Gives each streamed tool call delta its `index`. Most vendors send it; for those that do not, a new
 * id starts a new call and a delta without id continues the last one.
 */
class ToolCallIndexer {
  private readonly byId = new Map<string, number>();
  private next = 0;
  private last = -1;

  indexOf(raw: WireToolCall, position: number): number {
    const id = typeof raw.id === 'string' && raw.id !== '' ? raw.id : undefined;
    let index: number;
    if (typeof raw.index === 'number') index = raw.index;
    else if (id !== undefined) index = this.byId.get(id) ?? this.next;
    else index = this.last >= 0 ? this.last : position;
    if (id !== undefined) this.byId.set(id, index);
    this.next = Math.max(this.next, index + 1);
    this.last = index;
    return index;
  }
}

/** What one choice index has shown so far. */
interface ChoiceState {
  /** Made at the choice's first tool call delta: most answers have none. */
  tools: ToolCallIndexer | null;
  hadToolCalls: boolean;
  finished: boolean;
}

function toolCallDelta(raw: WireToolCall, index: number): ToolCallDelta {
  const delta: ToolCallDelta = { index };
  if (typeof raw.id === 'string' && raw.id !== '') {
    delta.id = raw.id;
    delta.type = 'function';
  }
  const name = typeof raw.function?.name === 'string' && raw.function.name !== '' ? raw.function.name : undefined;
  const args = argumentsText(raw.function?.arguments);
  if (name !== undefined || args !== undefined) delta.function = { ...(name !== undefined && { name }), ...(args !== undefined && { arguments: args }) };
  return delta;
}

/** What an event without chunks gives: one frozen empty array, read and never filled. */
const NONE: never[] = Object.freeze([]) as never[];

/**
 * Translates one OpenAI-compatible SSE stream into ChatChunks, event by event, with no I/O: feed each
 * event to `push`, then call `finish` when the upstream body ends. Usage may come on any chunk (OpenAI's
 * trailing usage chunk, Mistral's and DeepSeek's finish chunk, Groq's `x_groq`); the latest wins and
 * is yielded last, on a chunk of its own.
 */
export class OpenAiStreamTranslator implements StreamTranslator<ChatChunk> {
  private readonly choices = new Map<number, ChoiceState>();
  private usage: Usage | undefined;
  private sawDone = false;

  constructor(private readonly vendor: Pick<OpenAiCompatibleVendor, 'id' | 'streamEnd'>) {}

  /** True once `data: [DONE]` arrived: nothing after it matters. */
  get done(): boolean {
    return this.sawDone;
  }

  push(event: SseEvent): ChatChunk[] {
    if (this.sawDone) return NONE;
    if (event.data.trim() === '[DONE]') {
      this.sawDone = true;
      return NONE;
    }
    const payload = this.parse(event.data);
    const error = errorInPayload(this.vendor.id, payload) ?? (event.event === 'error' ? errorInPayload(this.vendor.id, { error: payload }) : null);
    if (error) throw error;
    this.usage = usageOf(payload) ?? this.usage;
    const raw: unknown[] = Array.isArray(payload.choices) ? payload.choices : NONE;
    const choices: ChunkChoice[] = [];
    for (let position = 0; position < raw.length; position++) {
      const choice = this.choiceOf(raw[position], position);
      if (choice) choices.push(choice);
    }
    return choices.length > 0 ? [{ choices }] : NONE;
  }

  /** The closing usage chunk; throws `stream_cut` when the stream ended before it was complete. */
  finish(): ChatChunk[] {
    if (!this.sawDone && !(this.vendor.streamEnd === 'done_or_finish' && this.allFinished())) throw streamCut(this.vendor.id);
    // Zeros when the vendor reported no usage at all, as for a whole answer without `usage`.
    return [{ choices: [], usage: this.usage ?? sumUsage(0, 0) }];
  }

  private allFinished(): boolean {
    return this.choices.size > 0 && [...this.choices.values()].every((choice) => choice.finished);
  }

  private parse(data: string): WireCompletion {
    try {
      const parsed: unknown = JSON.parse(data);
      if (isRecord(parsed)) return parsed as WireCompletion;
    } catch {
      // Reported below.
    }
    throw new UpstreamError({ kind: 'invalid_response', provider: this.vendor.id, message: `${this.vendor.id} sent a stream event that is not a JSON object` });
  }

  private stateOf(index: number): ChoiceState {
    let state = this.choices.get(index);
    if (!state) this.choices.set(index, (state = { tools: null, hadToolCalls: false, finished: false }));
    return state;
  }

  /** One wire choice as a ChunkChoice; null when it says nothing (the role-only opening delta). */
  private choiceOf(raw: unknown, position: number): ChunkChoice | null {
    if (!isRecord(raw)) return null;
    const index = typeof raw.index === 'number' ? raw.index : position;
    const state = this.stateOf(index);
    const wire = isRecord(raw.delta) ? raw.delta : {};
    const content = contentText(wire.content);
    // Most deltas carry text alone: no arrays are made for tool calls they do not have.
    const calls = Array.isArray(wire.tool_calls) ? (wire.tool_calls.filter(isRecord) as WireToolCall[]) : null;
    const deltas = calls && calls.length > 0 ? calls.map((call, i) => toolCallDelta(call, (state.tools ??= new ToolCallIndexer()).indexOf(call, i))) : null;
    state.hadToolCalls ||= deltas !== null;
    const finish = finishReasonOf(raw.finish_reason, state.hadToolCalls);
    state.finished ||= finish !== null;
    if (!content && deltas === null && finish === null) return null;
    const delta: ChunkChoice['delta'] = {};
    if (content) delta.content = content;
    if (deltas !== null) delta.tool_calls = deltas;
    if (wire.role === 'assistant') delta.role = 'assistant';
    return { index, delta, finish_reason: finish };
  }
}
