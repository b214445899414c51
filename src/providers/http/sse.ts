import { UpstreamError } from '../../errors/upstream-error';
import type { ProviderContext } from '../types';
import { transportError, type UpstreamResponse } from './upstream-fetch';

export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** Splits one event block into its `event:` name and joined `data:` lines; comments are dropped. */
function parseBlock(block: string): SseEvent | null {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 && event === undefined ? null : { event, data: data.join('\n') };
}

/** CRLF and lone CR line ends as LF, as the SSE format allows all three. */
const normaliseLineEnds = (text: string) => text.replace(/\r\n?/g, '\n');

/**
 * Server-sent events from an upstream body, as they arrive. Each chunk extends the deadline (an idle
 * timeout); a body that breaks off throws `stream_cut`. A stream that ends cleanly but early is for
 * the adapter to judge, since only it knows its terminal event.
 */
export async function* readSse(provider: string, upstream: UpstreamResponse, ctx: ProviderContext): AsyncGenerator<SseEvent> {
  const body = upstream.response.body;
  if (!body) throw new UpstreamError({ kind: 'invalid_response', provider, message: `${provider} sent an empty stream` });
  const decoder = new TextDecoder();
  let buffer = '';
  // A chunk ending in '\r' may be half of a '\r\n' split across chunks: that '\r' waits for the next one.
  let heldCr = '';
  // Left early (the reader had its terminal event) or broken off: what to do with the rest of the body.
  let unread: 'drain' | 'destroy' | null = 'drain';
  try {
    for await (const bytes of body) {
      upstream.deadline.extend();
      const text = heldCr + decoder.decode(bytes, { stream: true });
      heldCr = text.endsWith('\r') ? '\r' : '';
      buffer += normaliseLineEnds(heldCr ? text.slice(0, -1) : text);
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const parsed = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (parsed) yield parsed;
        end = buffer.indexOf('\n\n');
      }
    }
    unread = null;
    const rest = parseBlock((buffer + normaliseLineEnds(heldCr)).trim());
    if (rest) yield rest;
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
