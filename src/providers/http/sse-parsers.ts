import { createParser, type EventSourceParser } from 'eventsource-parser';

/** One server-sent event: its `event:` field, if any, and its `data:` lines joined. */
export interface SseEvent {
  event?: string | undefined;
  data: string;
}

/** An SSE parser and the events it parsed that were not handed to the translator yet. */
export interface ParserSlot {
  parser: EventSourceParser;
  events: SseEvent[];
}

/**
 * Parsers of ended streams, reset, for the next streams: making one builds a dozen closures, and every
 * streamed upstream call made one (about 1 KB of the worker's allocations per call). At most this many are kept.
 */
const MAX_IDLE_PARSERS = 256;
const idleParsers: ParserSlot[] = [];

/** A parser for a stream that starts reading: an idle one, or a new one. */
export function takeParser(): ParserSlot {
  const idle = idleParsers.pop();
  if (idle) return idle;
  const events: SseEvent[] = [];
  return { parser: createParser({ onEvent: (event) => void events.push(event) }), events };
}

/** Gives back a parser whose stream ended (nothing is fed to it any more): reset, it serves another stream. */
export function releaseParser(slot: ParserSlot): void {
  slot.parser.reset();
  slot.events.length = 0;
  if (idleParsers.length < MAX_IDLE_PARSERS) idleParsers.push(slot);
}
