import { COALESCE_MAX_EVENTS, COALESCE_WINDOW_MS, ReplyPublisher } from '../../src/pipeline/reply-publisher';
import type { ChunkChoice } from '../../src/domain/chat';
import { decodeReplies, encodeReplies, type Reply } from '../../src/queue/replies';
import { finishedOf, testResult } from '../helpers/completion-result';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const delta = (requestId: string, text: string, choice: Partial<ChunkChoice> = {}): Reply => ({
  type: 'delta',
  requestId,
  run: 'r1',
  model: 'm',
  choices: [{ index: 0, delta: { content: text }, finish_reason: null, ...choice }],
});
const toolDelta = (requestId: string, args: string): Reply => delta(requestId, '', { delta: { tool_calls: [{ index: 0, function: { arguments: args } }] } });
const step = (requestId: string): Reply => ({ type: 'step', requestId, run: 'r1', step: { kind: 'plugin', name: 'web-search', status: 'started' } });
const done = (requestId: string): Reply => ({ type: 'done', requestId, run: 'r1', ...finishedOf(testResult()) });

function recorder() {
  const sent: { channel: string; replies: Reply[]; at: number }[] = [];
  const publisher = new ReplyPublisher(
    async (channel, message) => {
      sent.push({ channel, replies: decodeReplies(message), at: Date.now() });
    },
    (err) => {
      throw err;
    },
  );
  return { sent, publisher };
}

const texts = (replies: Reply[]) => replies.map((r) => (r.type === 'delta' ? (r.choices[0]?.delta.content ?? '') : r.type));

describe('ReplyPublisher', () => {
  it('sends a request first reply at once, gathers the following deltas, and sends the end at once with them, in order', async () => {
    const { sent, publisher } = recorder();
    await publisher.publish('c', delta('a', 'one'));
    expect(sent).toHaveLength(1);
    await publisher.publish('c', delta('a', 'two '));
    await publisher.publish('c', delta('a', 'three'));
    expect(sent).toHaveLength(1);
    await publisher.publish('c', done('a'));
    expect(sent.map((m) => texts(m.replies))).toEqual([['one'], ['two three', 'done']]);
  });

  it('sends gathered deltas after the window even when nothing else comes', async () => {
    const { sent, publisher } = recorder();
    await publisher.publish('c', delta('a', 'one'));
    await publisher.publish('c', delta('a', 'two'));
    await sleep(COALESCE_WINDOW_MS * 4);
    expect(sent.map((m) => texts(m.replies))).toEqual([['one'], ['two']]);
  });

  it('never holds another request first delta: it takes the waiting ones along', async () => {
    const { sent, publisher } = recorder();
    await publisher.publish('c', delta('a', 'a1'));
    await publisher.publish('c', delta('a', 'a2'));
    await publisher.publish('c', delta('b', 'b1'));
    expect(sent.map((m) => texts(m.replies))).toEqual([['a1'], ['a2', 'b1']]);
  });

  it('keeps channels apart and bounds a message', async () => {
    const { sent, publisher } = recorder();
    await publisher.publish('x', delta('a', 'first'));
    await publisher.publish('y', delta('b', 'first'));
    // Tool-call deltas are not joined, so each counts towards the bound.
    for (let i = 0; i < COALESCE_MAX_EVENTS; i += 1) await publisher.publish('x', toolDelta('a', String(i)));
    expect(sent.map((m) => [m.channel, m.replies.length])).toEqual([
      ['x', 1],
      ['y', 1],
      ['x', COALESCE_MAX_EVENTS],
    ]);
    await publisher.close();
  });
});

describe('ReplyPublisher, text deltas gathered together', () => {
  it('joins the text deltas of one request, each request apart, keeping their order', async () => {
    const { sent, publisher } = recorder();
    await publisher.publish('c', delta('a', 'a1'));
    await publisher.publish('c', delta('b', 'b1'));
    for (const text of ['a2 ', 'a3']) await publisher.publish('c', delta('a', text));
    await publisher.publish('c', delta('b', 'b2'));
    await publisher.publish('c', delta('a', ' a4'));
    await publisher.publish('c', done('a'));
    expect(sent.map((m) => texts(m.replies))).toEqual([['a1'], ['b1'], ['a2 a3 a4', 'b2', 'done']]);
    expect(sent[2]?.replies[0]).toEqual(delta('a', 'a2 a3 a4'));
  });

  it('does not join across a step, a tool call, another choice, a finish, another model or another run', async () => {
    const { sent, publisher } = recorder();
    await publisher.publish('c', delta('a', 'first'));
    const apart: Reply[] = [
      delta('a', 'x'),
      step('a'),
      delta('a', 'y'),
      toolDelta('a', '{}'),
      delta('a', 'z'),
      delta('a', 'other choice', { index: 1 }),
      delta('a', 'w'),
      delta('a', '', { finish_reason: 'stop' }),
      { ...delta('a', 'v'), model: 'other' } as Reply,
      // A run of the same request restarted elsewhere: its first delta is sent at once, with those waiting.
      { ...delta('a', 'u'), model: 'other', run: 'r2' } as Reply,
    ];
    for (const reply of apart) await publisher.publish('c', reply);
    await publisher.publish('c', done('a'));
    expect(sent.slice(1).map((m) => m.replies)).toEqual([apart, [done('a')]]);
  });
});

describe('ReplyPublisher, replies ready together', () => {
  it('sends the ends of requests released in the same turn as one message', async () => {
    const { sent, publisher } = recorder();
    await Promise.all(['a', 'b', 'c'].map((id) => publisher.publish('c', done(id))));
    expect(sent.map((m) => texts(m.replies))).toEqual([['done', 'done', 'done']]);
  });
});

describe('encodeReplies / decodeReplies', () => {
  it('carries a done reply’s metadata as the worker serialised it, on a line of its own, among other replies in order', () => {
    const finished = finishedOf(testResult({ report: { warnings: ['line one\nline two'], labels: { note: 'a "quoted"\nvalue' } } }));
    const replies: Reply[] = [delta('a', 'x\ny'), { type: 'done', requestId: 'a', run: 'r1', ...finished }, step('b')];
    const message = encodeReplies(replies);
    expect(message.split('\n')).toHaveLength(4);
    expect(message).toContain(`\n${finished.metadata}\n`);
    const decoded = decodeReplies(message);
    expect(decoded).toEqual(replies);
    expect(decoded[1]?.type === 'done' && decoded[1].metadata).toBe(finished.metadata);
  });

  it('refuses a done reply without its metadata line', () => {
    expect(() => decodeReplies(JSON.stringify({ type: 'done', requestId: 'a', run: 'r1', answer: {} }))).toThrow(/metadata/);
  });
});
