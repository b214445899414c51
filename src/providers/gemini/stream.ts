import type { ChatChunk, ChunkChoice, ToolCallDelta, Usage } from '../../domain/chat';
import { UpstreamError } from '../../errors/upstream-error';
import { streamCut, type SseEvent, type StreamTranslator } from '../http/sse';
import { streamError } from './errors';
import { finishReasonOf, promptBlocked, textOf, toolCallId, usageOf } from './response';
import type { GeminiCandidate, GeminiResponse } from './wire';

const PROVIDER = 'gemini';

interface CandidateState {
  /** Function calls seen so far; the next one's `index`. */
  calls: number;
  started: boolean;
  finished: boolean;
}

/**
 * `streamGenerateContent?alt=sse` → ChatChunks. Every `data:` event is a whole GenerateContentResponse
 * holding the next piece of each candidate; there is no `[DONE]`: the stream is complete once every
 * candidate has had its `finishReason`. Text parts become content deltas; a `functionCall` part arrives
 * whole, so it becomes one complete tool-call delta (id, name and all arguments). Usage is taken from
 * the last `usageMetadata` seen (each chunk may repeat a running count) and sent in a final chunk.
 */
export class GeminiStreamTranslator implements StreamTranslator<ChatChunk> {
  private readonly candidates = new Map<number, CandidateState>();
  private usage: Usage | undefined;

  /** No terminal event: the body's end is the stream's, judged by `finish`. */
  readonly done = false;

  /** One event's `data:` payload → the chunks to send (none for an event with nothing new). */
  push({ data }: SseEvent): ChatChunk[] {
    const parsed = this.parse(data);
    const error = streamError(parsed, data);
    if (error) throw error;
    const response = this.responseOf(parsed);
    const blocked = promptBlocked(response);
    if (blocked) throw blocked;
    if (response.usageMetadata) this.usage = usageOf(response.usageMetadata);
    const choices = (response.candidates ?? []).flatMap((candidate) => this.choice(candidate, response.responseId) ?? []);
    return choices.length > 0 ? [{ choices }] : [];
  }

  /** At the end of the body: the usage chunk, or `stream_cut` when a candidate never finished. */
  finish(): ChatChunk[] {
    const states = [...this.candidates.values()];
    if (states.length === 0 || states.some((state) => !state.finished)) throw streamCut(PROVIDER);
    return [{ choices: [], usage: this.usage ?? usageOf(undefined) }];
  }

  /** The event read as JSON, once: an error event and a response are both told apart from it. */
  private parse(data: string): unknown {
    try {
      return JSON.parse(data) as unknown;
    } catch {
      throw this.notAnObject();
    }
  }

  private responseOf(parsed: unknown): GeminiResponse {
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as GeminiResponse;
    throw this.notAnObject();
  }

  private notAnObject(): UpstreamError {
    return new UpstreamError({ kind: 'invalid_response', provider: PROVIDER, message: 'Gemini sent a stream event that is not a JSON object.' });
  }

  private choice(candidate: GeminiCandidate, responseId: string | undefined): ChunkChoice | null {
    const index = candidate.index ?? 0;
    const state = this.candidates.get(index) ?? { calls: 0, started: false, finished: false };
    this.candidates.set(index, state);
    const parts = candidate.content?.parts ?? [];
    const toolCalls: ToolCallDelta[] = parts.flatMap((part) => {
      if (!part.functionCall) return [];
      const call = part.functionCall;
      const at = { responseId, candidate: index, index: state.calls };
      state.calls += 1;
      return [
        { index: at.index, id: toolCallId(call, at), type: 'function' as const, function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } },
      ];
    });
    const text = textOf(parts);
    const finish = finishReasonOf(candidate.finishReason, state.calls > 0);
    if (finish) state.finished = true;
    if (!text && toolCalls.length === 0 && !finish) return null;
    const delta: ChunkChoice['delta'] = {
      ...(state.started ? {} : { role: 'assistant' as const }),
      ...(text ? { content: text } : {}),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    };
    state.started = true;
    return { index, delta, finish_reason: finish };
  }
}
