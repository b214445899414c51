import pino from 'pino';
import { Deadline } from '../../src/net/deadline';
import { readSse, type SseEvent } from '../../src/providers/http/sse';
import type { ProviderContext } from '../../src/providers/types';
import { upstreamResponse } from '../helpers/upstream-response';

const ctx: ProviderContext = { apiKey: 'k', baseUrl: 'http://x', signal: new AbortController().signal, timeoutMs: 5000, logger: pino({ level: 'silent' }) };

async function eventsOf(pieces: string[]): Promise<SseEvent[]> {
  const upstream = { response: upstreamResponse(pieces.join(''), { pieces }), deadline: new Deadline(ctx.signal, { idleMs: ctx.timeoutMs }) };
  const events: SseEvent[] = [];
  for await (const batch of readSse('test', upstream, ctx)) {
    expect(batch.length).toBeGreaterThan(0);
    events.push(...batch);
  }
  return events;
}

describe('readSse', () => {
  const expected = [
    { event: 'message_start', data: '{"a":1}' },
    { event: undefined, data: 'two\nlines' },
  ];

  it('reads LF, CRLF and CR line ends alike', async () => {
    expect(await eventsOf(['event: message_start\ndata: {"a":1}\n\ndata: two\ndata: lines\n\n'])).toEqual(expected);
    expect(await eventsOf(['event: message_start\r\ndata: {"a":1}\r\n\r\ndata: two\r\ndata: lines\r\n\r\n'])).toEqual(expected);
    expect(await eventsOf(['event: message_start\rdata: {"a":1}\r\rdata: two\rdata: lines\r\r'])).toEqual(expected);
  });

  it('keeps a CRLF split across two chunks as one line end', async () => {
    expect(await eventsOf(['event: message_start\r', '\ndata: {"a":1}\r\n\r', '\ndata: two\r\ndata: lines\r\n\r', '\n'])).toEqual(expected);
  });

  it('reads events split anywhere, and a last event without its blank line', async () => {
    expect(await eventsOf(['event: mess', 'age_start\ndata: {"a"', ':1}\n', '\ndata: two\ndata: lines'])).toEqual(expected);
    expect(await eventsOf(['data: two\ndata: lines\r'])).toEqual([expected[1]]);
  });

  it('hands over the events of one read together, in order', async () => {
    const pieces = ['data: a\n\ndata: b\n\nda', 'ta: c\n\n'];
    const upstream = { response: upstreamResponse(pieces.join(''), { pieces }), deadline: new Deadline(ctx.signal, { idleMs: ctx.timeoutMs }) };
    const batches: string[][] = [];
    for await (const batch of readSse('test', upstream, ctx)) batches.push(batch.map((event) => event.data));
    expect(batches).toEqual([['a', 'b'], ['c']]);
  });
});
