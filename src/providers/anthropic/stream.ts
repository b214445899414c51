import type { ChatChunk, ChunkChoice, ToolCallDelta } from '../../domain/chat';
import { streamCut, type SseEvent, type StreamTranslator } from '../http/sse';
import { UpstreamError } from '../../errors/upstream-error';
import { streamError } from './errors';
import { finishReasonFor, usageOf } from './response';
import type { ResponseBlock, ToolUseBlock, WireUsage } from './wire';

const PROVIDER = 'anthropic';

interface StreamEventData {
  type?: string;
  index?: number;
  message?: { usage?: WireUsage };
  content_block?: ResponseBlock;
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: WireUsage;
}

interface ToolBlock {
  call: number;
  /** The `input` of `content_block_start`, sent only if no `input_json_delta` follows. */
  startInput: unknown;
  sentArguments: boolean;
}

const USAGE_FIELDS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

function delta(value: ChunkChoice['delta']): ChatChunk {
  return { choices: [{ index: 0, delta: value, finish_reason: null }] };
}

const toolDelta = (call: ToolCallDelta): ChatChunk => delta({ tool_calls: [call] });

/**
 * Anthropic's stream events → chat chunks, one event at a time, without I/O. Text deltas become content,
 * each `tool_use` block becomes a tool call (index counted from 0 over tool blocks, id passed through,
 * `input_json_delta` fragments as argument deltas). Usage is the input counts of `message_start` plus
 * the cumulative counts of the last `message_delta`, sent with the finish reason on `message_stop`.
 * `ping`, thinking deltas and unknown events are skipped; an `error` event throws.
 */
export class AnthropicStreamTranslator implements StreamTranslator<ChatChunk> {
  private readonly usage: WireUsage = {};
  private stopReason: string | null = null;
  private readonly toolBlocks = new Map<number, ToolBlock>();
  private calls = 0;
  private stopped = false;

  /** True once `message_stop` arrived; later events are ignored. */
  get done(): boolean {
    return this.stopped;
  }

  push(event: SseEvent): ChatChunk[] {
    if (this.stopped) return [];
    if (event.event === 'error') throw streamError(event.data);
    const data = this.parse(event.data);
    switch (data.type ?? event.event) {
      case 'message_start':
        this.addUsage(data.message?.usage);
        return [delta({ role: 'assistant' })];
      case 'content_block_start':
        return this.blockStart(data.index ?? 0, data.content_block);
      case 'content_block_delta':
        return this.blockDelta(data.index ?? 0, data.delta);
      case 'content_block_stop':
        return this.blockStop(data.index ?? 0);
      case 'message_delta':
        this.stopReason = data.delta?.stop_reason ?? this.stopReason;
        this.addUsage(data.usage);
        return [];
      case 'message_stop':
        this.stopped = true;
        return [this.finalChunk()];
      case 'error':
        throw streamError(event.data);
      default:
        return [];
    }
  }

  /** Call when the body has ended: a stream without `message_stop` was cut (its last chunk went with it). */
  finish(): ChatChunk[] {
    if (!this.stopped) throw streamCut(PROVIDER);
    return [];
  }

  private parse(text: string): StreamEventData {
    try {
      const data: unknown = JSON.parse(text);
      if (typeof data === 'object' && data !== null) return data as StreamEventData;
    } catch {
      // reported below
    }
    throw new UpstreamError({ kind: 'invalid_response', provider: PROVIDER, message: 'Anthropic sent a stream event that is not JSON' });
  }

  /** Counts in `message_delta` are cumulative, so the latest value of each field wins. */
  private addUsage(usage: WireUsage | undefined): void {
    for (const field of USAGE_FIELDS) {
      const value = usage?.[field];
      if (typeof value === 'number') this.usage[field] = value;
    }
    if (usage?.output_tokens_details) this.usage.output_tokens_details = usage.output_tokens_details;
  }

  private blockStart(index: number, block: ResponseBlock | undefined): ChatChunk[] {
    if (block?.type === 'text') {
      const text = (block as { text?: string }).text ?? '';
      return text === '' ? [] : [delta({ content: text })];
    }
    if (block?.type !== 'tool_use') return [];
    const toolUse = block as ToolUseBlock;
    const call = this.calls++;
    this.toolBlocks.set(index, { call, startInput: toolUse.input, sentArguments: false });
    return [toolDelta({ index: call, id: toolUse.id, type: 'function', function: { name: toolUse.name, arguments: '' } })];
  }

  private blockDelta(index: number, change: StreamEventData['delta']): ChatChunk[] {
    if (change?.type === 'text_delta') return change.text ? [delta({ content: change.text })] : [];
    const tool = this.toolBlocks.get(index);
    if (change?.type !== 'input_json_delta' || !tool || !change.partial_json) return [];
    tool.sentArguments = true;
    return [toolDelta({ index: tool.call, function: { arguments: change.partial_json } })];
  }

  /** A tool block that streamed no arguments still owes its caller a JSON object. */
  private blockStop(index: number): ChatChunk[] {
    const tool = this.toolBlocks.get(index);
    if (!tool || tool.sentArguments) return [];
    tool.sentArguments = true;
    return [toolDelta({ index: tool.call, function: { arguments: JSON.stringify(tool.startInput ?? {}) } })];
  }

  private finalChunk(): ChatChunk {
    const finish = finishReasonFor(this.stopReason);
    return {
      choices: finish ? [{ index: 0, delta: {}, finish_reason: finish }] : [],
      usage: usageOf(this.usage),
    };
  }
}
