import { StringDecoder } from 'node:string_decoder';
import { UpstreamError } from '../../errors/upstream-error';
import type { ProviderContext } from '../types';
import { releaseParser, takeParser, type ParserSlot, type SseEvent } from './sse-parsers';
import { transportError, type UpstreamResponse } from './upstream-fetch';

export type { SseEvent } from './sse-parsers';

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

/** Adds the translator's closing items to `batch`; answers what `finish` threw (`stream_cut`), if it did. */
function closingItems<T>(translator: StreamTranslator<T>, batch: T[]): unknown {
  try {
    for (const item of translator.finish()) batch.push(item);
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

const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/** How a stream ends once its batches are taken: with an error (thrown once), or done. */
type Ending = { error: unknown } | 'done';

/** U+FEFF at the start of a stream is a byte order mark, not text (as TextDecoder drops it). */
const BOM = 0xfeff;

/**
 * A provider's streamed answer: opens the upstream call (on the first `next`, as a generator's body would),
 * reads its body's server-sent events (parsed by eventsource-parser: `event:` and joined `data:` lines,
 * comments dropped, any of the three line ends), and hands over what the translator makes of the events of
 * each read of the body, together, never an empty batch; the translator's closing items (the usage) go
 * with the last read's.
 * - One step per read, rather than per event or per layer, and no async generator over the body's own
 *   async iterator: the body is read (`read()`, what is buffered, at once) only when the consumer asks for
 *   the next batch, each step costing one promise. Each layer of async generator cost every step several
 *   promises and turns of the microtask queue, and its end three more.
 * - Items read before an error event go out before the error.
 * - Reading stops at the translator's terminal event rather than waiting for the server to close the
 *   connection; the rest of the body is drained. A stream that ends without it is for `finish` to judge.
 * - Each read extends the deadline (an idle timeout); a body that breaks off throws `stream_cut`.
 * As with any async iterator, `next` is called again only once the last one settled (as `for await` does).
 */
class SseStream<T> implements AsyncIterableIterator<T[]> {
  /** Batches read and not yet taken, in order. */
  private readonly ready: T[][] = [];
  /** How the stream ends after `ready`; null while it goes on. */
  private ending: Ending | null = null;
  private waiter: { resolve(result: IteratorResult<T[], undefined>): void; reject(err: unknown): void } | null = null;
  private phase: 'new' | 'opening' | 'reading' | 'closed' = 'new';
  private upstream: UpstreamResponse | undefined;
  private readonly decoder = new StringDecoder('utf8');
  private bomChecked = false;
  /** Taken from the idle parsers when the body is read, given back when the stream ends. */
  private slot: ParserSlot | null = null;
  private readonly onReadable = () => this.pump();
  private readonly onEnd = () => this.ended();
  private readonly onError = (err: unknown) => this.broke(err);
  // Closed with neither an end nor an error (destroyed): as an async iterator over the body reports it.
  private readonly onClose = () => this.broke(new Error('Premature close'));

  constructor(
    private readonly call: StreamCall,
    private readonly translator: StreamTranslator<T>,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T[], undefined>> {
    const batch = this.ready.shift();
    if (batch) return Promise.resolve({ value: batch, done: false });
    if (this.ending) return this.settle();
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
      if (this.phase === 'new') this.open();
      else if (this.phase === 'reading') this.pump();
    });
  }

  /** The consumer stopped: the rest of the body is drained so its connection serves the next call. */
  return(): Promise<IteratorResult<T[], undefined>> {
    if (this.phase === 'reading') this.stop('drain');
    this.phase = 'closed';
    this.release();
    this.ready.length = 0;
    this.ending = 'done';
    return Promise.resolve(DONE);
  }

  /** The ending, once: an error is thrown by one `next`, and the stream is done after it. */
  private settle(): Promise<IteratorResult<T[], undefined>> {
    const ending = this.ending;
    this.ending = 'done';
    return ending === 'done' || ending === null ? Promise.resolve(DONE) : Promise.reject(ending.error);
  }

  private open(): void {
    this.phase = 'opening';
    let opening: Promise<UpstreamResponse>;
    try {
      opening = this.call.open();
    } catch (err) {
      this.end({ error: err });
      return;
    }
    opening.then(
      (upstream) => this.listen(upstream),
      (err: unknown) => this.end({ error: err }),
    );
  }

  private listen(upstream: UpstreamResponse): void {
    if (this.phase === 'closed') {
      // Left before the call answered.
      upstream.deadline.clear();
      upstream.response.finish('drain');
      return;
    }
    this.upstream = upstream;
    this.slot = takeParser();
    this.phase = 'reading';
    const body = upstream.response.body;
    body.on('readable', this.onReadable);
    body.on('end', this.onEnd);
    body.on('error', this.onError);
    body.on('close', this.onClose);
    this.pump();
  }

  /** Reads while a batch is asked for and the body has bytes buffered; else `readable` (or the end) calls again. */
  private pump(): void {
    const upstream = this.upstream;
    if (!upstream) return;
    while (this.waiter !== null && this.phase === 'reading') {
      try {
        const bytes = upstream.response.body.read() as Uint8Array | null;
        if (bytes === null) return;
        upstream.deadline.extend();
        this.slot?.parser.feed(this.decode(bytes));
      } catch (err) {
        this.broke(err);
        return;
      }
      if (this.slot && this.slot.events.length > 0) this.translate(false);
    }
  }

  private decode(bytes: Uint8Array): string {
    const text = this.decoder.write(bytes);
    if (this.bomChecked || text === '') return text;
    this.bomChecked = true;
    return text.charCodeAt(0) === BOM ? text.slice(1) : text;
  }

  /**
   * Hands over the items of the events read; after an error event, at the terminal event or at the body's
   * end (`atEnd`), stops reading and ends the stream, the translator's closing items in the same batch.
   */
  private translate(atEnd: boolean): void {
    const batch: T[] = [];
    const events = this.slot?.events ?? [];
    let failure = translateRead(events, this.translator, batch);
    events.length = 0;
    const ending = atEnd || failure !== undefined || this.translator.done;
    if (ending && !atEnd) this.stop('drain');
    if (ending && failure === undefined) failure = closingItems(this.translator, batch);
    if (batch.length > 0) this.deliver(batch);
    if (ending) this.end(failure === undefined ? 'done' : { error: failure });
  }

  /** The body ended: a last event without its closing blank line still counts. */
  private ended(): void {
    this.stop(null);
    this.slot?.parser.feed(`${this.decoder.end()}\n\n`);
    this.translate(true);
  }

  private broke(err: unknown): void {
    const upstream = this.upstream;
    if (this.phase !== 'reading' || !upstream) return;
    this.stop('destroy');
    const { provider, ctx } = this.call;
    const error = transportError(provider, err, { deadline: upstream.deadline, ctx });
    this.end({
      error:
        error.kind === 'connection' ? new UpstreamError({ kind: 'stream_cut', provider, message: `${provider} stream broke off: ${error.message}` }) : error,
    });
  }

  /** Lets the body go: nothing left (`null`), the rest drained, or the connection closed. */
  private stop(unread: 'drain' | 'destroy' | null): void {
    this.phase = 'closed';
    const upstream = this.upstream;
    if (!upstream) return;
    const body = upstream.response.body;
    body.off('readable', this.onReadable);
    body.off('end', this.onEnd);
    body.off('error', this.onError);
    body.off('close', this.onClose);
    upstream.deadline.clear();
    if (unread) upstream.response.finish(unread);
  }

  /** Gives the parser back for another stream, once: nothing is parsed after the stream ended. */
  private release(): void {
    if (this.slot) releaseParser(this.slot);
    this.slot = null;
  }

  private deliver(batch: T[]): void {
    const waiter = this.waiter;
    if (!waiter) {
      this.ready.push(batch);
      return;
    }
    this.waiter = null;
    waiter.resolve({ value: batch, done: false });
  }

  private end(ending: Ending): void {
    this.phase = 'closed';
    this.release();
    this.ending = ending;
    const waiter = this.waiter;
    if (!waiter || this.ready.length > 0) return;
    this.waiter = null;
    this.ending = 'done';
    if (ending === 'done') waiter.resolve(DONE);
    else waiter.reject(ending.error);
  }
}

/** A provider's streamed answer, read and translated as `SseStream` says. */
export function translateSse<T>(call: StreamCall, translator: StreamTranslator<T>): AsyncIterableIterator<T[]> {
  return new SseStream(call, translator);
}

/** The error for a stream that ended without its terminal event. */
export function streamCut(provider: string): UpstreamError {
  return new UpstreamError({ kind: 'stream_cut', provider, message: `${provider} stream ended before it was complete` });
}
