import { createParser } from 'eventsource-parser';
import { UpstreamError } from '../../errors/upstream-error';
import type { ProviderContext } from '../types';
import { transportError, type UpstreamResponse } from './upstream-fetch';

export interface SseEvent {
  event: string | undefined;
  data: string;
}

/**
 * One upstream's stream format, translated event by event with no I/O (each provider's `stream.ts`).
 * `translateSse` drives it over the body's events.
 */
export interface StreamTranslator<T> {
  /** The items one event gives (none for an event with nothing new); throws on an error event. */
  push(event: SseEvent): T[];
  /** True once the terminal event arrived: the rest of the body is not read. */
  readonly done: boolean;
  /** At the end of the body: the closing items; throws `stream_cut` when the stream ended early. */
  finish(): T[];
}

/**
 * Translates one read's events into `batch`, in order, and answers what the translator threw (an error
 * event), if it did: the items of the events before it are in `batch`, for the stream to yield first.
 */
function translateRead<T>(events: readonly SseEvent[], translator: StreamTranslator<T>, batch: T[]): unknown {
  try {
    for (const event of events) for (const item of translator.push(event)) batch.push(item);
    return undefined;
  } catch (err) {
    return err ?? new Error('the stream translator failed');
  }
}

/** A streamed upstream call, not yet made: `open` posts it. */
export interface StreamCall {
  provider: string;
  ctx: ProviderContext;
  open: () => Promise<UpstreamResponse>;
}

/**
 * A provider's streamed answer: opens the upstream call (on the first step, as a generator's body would),
 * then yields the items of each read of its body together, never an empty batch. Items read before an
 * error event go out before the error. Reading stops at the translator's terminal event rather than
 * waiting for the server to close the connection.
 */
export async function* translateSse<T>(call: StreamCall, translator: StreamTranslator<T>): AsyncGenerator<T[]> {
  const { provider, ctx } = call;
  const upstream = await call.open();
  for await (const events of readSse(provider, upstream, ctx)) {
    const batch: T[] = [];
    const failure = translateRead(events, translator, batch);
    if (batch.length > 0) yield batch;
    if (failure !== undefined) throw failure;
    if (translator.done) break;
  }
  const last = translator.finish();
  if (last.length > 0) yield last;
}

/**
 * Server-sent events from an upstream body, as they arrive (parsed by eventsource-parser: `event:`
 * and joined `data:` lines, comments dropped, any of the three line ends): the events each read of the
 * body completed, together, in order (never an empty batch). One step of an async generator per read
 * rather than per event: each step costs its consumer promises and a turn of the microtask queue, and
 * a stream's reads often carry several events. Each read extends the deadline (an idle timeout); a body
 * that breaks off throws `stream_cut`. A stream that ends cleanly but early is for the adapter to
 * judge, since only it knows its terminal event.
 */
export async function* readSse(provider: string, upstream: UpstreamResponse, ctx: ProviderContext): AsyncGenerator<SseEvent[]> {
  const body = upstream.response.body;
  if (!body) throw new UpstreamError({ kind: 'invalid_response', provider, message: `${provider} sent an empty stream` });
  const decoder = new TextDecoder();
  let parsed: SseEvent[] = [];
  const parser = createParser({ onEvent: ({ event, data }) => void parsed.push({ event, data }) });
  // Left early (the reader had its terminal event) or broken off: what to do with the rest of the body.
  let unread: 'drain' | 'destroy' | null = 'drain';
  try {
    for await (const bytes of body) {
      upstream.deadline.extend();
      parser.feed(decoder.decode(bytes, { stream: true }));
      if (parsed.length === 0) continue;
      const ready = parsed;
      parsed = [];
      yield ready;
    }
    unread = null;
    // A last event without its closing blank line still counts.
    parser.feed(`${decoder.decode()}\n\n`);
    if (parsed.length > 0) yield parsed;
  } catch (err) {
    unread = 'destroy';
    const error = transportError(provider, err, { deadline: upstream.deadline, ctx });
    if (error.kind === 'connection') throw new UpstreamError({ kind: 'stream_cut', provider, message: `${provider} stream broke off: ${error.message}` });
    throw error;
  } finally {
    upstream.deadline.clear();
    if (unread) upstream.response.finish(unread);
  }
}

/** The error for a stream that ended without its terminal event. */
export function streamCut(provider: string): UpstreamError {
  return new UpstreamError({ kind: 'stream_cut', provider, message: `${provider} stream ended before it was complete` });
}
