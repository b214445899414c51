import { Readable } from 'node:stream';
import pino from 'pino';
import { Deadline } from '../../src/net/deadline';
import { translateSse, type SseEvent, type StreamTranslator } from '../../src/providers/http/sse';
import type { ProviderContext } from '../../src/providers/types';
import { upstreamResponse } from '../helpers/upstream-response';

const ctx: ProviderContext = { apiKey: 'k', baseUrl: 'http://x', signal: new AbortController().signal, timeoutMs: 5000, logger: pino({ level: 'silent' }) };

/** Each event as it is (what the SSE reading alone gives); an event whose data is `boom` is an error event, `stop` the terminal one. */
function asRead(): StreamTranslator<SseEvent> {
  let stopped = false;
  return {
    push: (event) => {
      if (event.data === 'boom') throw new Error('error event');
      if (event.data === 'stop') stopped = true;
      return [event];
    },
    get done() {
      return stopped;
    },
    finish: () => [],
  };
}

/** The stream loop over an in-memory body arriving in `pieces` (or over `body` itself). */
function read(
  pieces: string[],
  { body, translator = asRead() }: { body?: Readable; translator?: StreamTranslator<SseEvent> } = {},
): AsyncIterableIterator<SseEvent[]> {
  const response = { ...upstreamResponse(pieces.join(''), { pieces }), ...(body && { body }) };
  const upstream = { response, deadline: new Deadline(ctx.signal, { idleMs: ctx.timeoutMs }) };
  return translateSse({ provider: 'test', ctx, open: async () => upstream }, translator);
}

async function eventsOf(pieces: string[]): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const batch of read(pieces)) {
    expect(batch.length).toBeGreaterThan(0);
    events.push(...batch);
  }
  return events;
}

describe('translateSse reading server-sent events', () => {
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
    const batches: string[][] = [];
    for await (const batch of read(['data: a\n\ndata: b\n\nda', 'ta: c\n\n'])) batches.push(batch.map((event) => event.data));
    expect(batches).toEqual([['a', 'b'], ['c']]);
  });

  it('hands over the events read before an error event, then throws it', async () => {
    const seen: string[][] = [];
    await expect(
      (async () => {
        for await (const batch of read(['data: a\n\ndata: boom\n\ndata: late\n\n'])) seen.push(batch.map((event) => event.data));
      })(),
    ).rejects.toThrow('error event');
    expect(seen).toEqual([['a']]);
  });

  it('stops reading at the terminal event', async () => {
    const seen: string[][] = [];
    for await (const batch of read(['data: a\n\n', 'data: stop\n\n', 'data: after\n\n'])) seen.push(batch.map((event) => event.data));
    expect(seen).toEqual([['a'], ['stop']]);
  });

  it('drops a byte order mark at the start of the body, and only there', async () => {
    expect(await eventsOf(['\uFEFFdata: a\n\n', 'data: \uFEFFb\n\n'])).toEqual([{ data: 'a' }, { data: '\uFEFFb' }]);
  });

  it("hands over the translator's closing items with the terminal event's read", async () => {
    const translator: StreamTranslator<SseEvent> = Object.assign(asRead(), { finish: () => [{ data: 'usage' }] });
    const batches: string[][] = [];
    for await (const batch of read(['data: a\n\n', 'data: stop\n\n'], { translator })) batches.push(batch.map((event) => event.data));
    expect(batches).toEqual([['a'], ['stop', 'usage']]);
  });

  it('throws stream_cut when the body is closed before its end', async () => {
    let sent = false;
    const body = new Readable({
      read() {
        if (sent) this.destroy();
        else this.push(Buffer.from('data: a\n\n'));
        sent = true;
      },
    });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const batch of read([], { body })) seen.push(...batch.map((event) => event.data));
      })(),
    ).rejects.toMatchObject({ kind: 'stream_cut' });
    expect(seen).toEqual(['a']);
  });
});
