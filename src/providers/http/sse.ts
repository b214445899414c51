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
 * reads its body's server-sent events (parsed by eventsource-parser: `event:` and joined `data:` lines,
 * comments dropped, any of the three line ends), and yields what the translator makes of the events of
 * each read of the body, together, never an empty batch.
 * - One step of one async generator per read, rather than per event or per layer: each step costs its
 *   consumer promises and a turn of the microtask queue, and a stream's reads often carry several events.
 * - Items read before an error event go out before the error.
 * - Reading stops at the translator's terminal event rather than waiting for the server to close the
 *   connection; the rest of the body is drained. A stream that ends without it is for `finish` to judge.
 * - Each read extends the deadline (an idle timeout); a body that breaks off throws `stream_cut`.
 */
export async function* translateSse<T>(call: StreamCall, translator: StreamTranslator<T>): AsyncGenerator<T[]> {
  const { provider, ctx } = call;
  const upstream = await call.open();
  const body = upstream.response.body;
  const decoder = new TextDecoder();
  let events: SseEvent[] = [];
  const parser = createParser({ onEvent: ({ event, data }) => void events.push({ event, data }) });
  // Left early (the terminal event came, an error event, or the consumer stopped) or broken off: what to do with the rest of the body.
  let unread: 'drain' | 'destroy' | null = 'drain';
  // What the translator threw (an error event): thrown once the body is let go, as the body's own errors are not.
  let failure: unknown;
  try {
    for await (const bytes of body) {
      upstream.deadline.extend();
      parser.feed(decoder.decode(bytes, { stream: true }));
      if (events.length === 0) continue;
      const batch: T[] = [];
      failure = translateRead(events, translator, batch);
      events = [];
      if (batch.length > 0) yield batch;
      if (failure !== undefined || translator.done) break;
    }
    if (failure === undefined && !translator.done) {
      unread = null;
      // A last event without its closing blank line still counts.
      parser.feed(`${decoder.decode()}\n\n`);
      const batch: T[] = [];
      failure = translateRead(events, translator, batch);
      if (batch.length > 0) yield batch;
    }
  } catch (err) {
    unread = 'destroy';
    const error = transportError(provider, err, { deadline: upstream.deadline, ctx });
    if (error.kind === 'connection') throw new UpstreamError({ kind: 'stream_cut', provider, message: `${provider} stream broke off: ${error.message}` });
    throw error;
  } finally {
    upstream.deadline.clear();
    if (unread) upstream.response.finish(unread);
  }
  if (failure !== undefined) throw failure;
  const last = translator.finish();
  if (last.length > 0) yield last;
}

/** The error for a stream that ended without its terminal event. */
export function streamCut(provider: string): UpstreamError {
  return new UpstreamError({ kind: 'stream_cut', provider, message: `${provider} stream ended before it was complete` });
}
