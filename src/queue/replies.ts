import type { CompletionAnswer, CompletionFailure, StreamEvent } from '../domain/completion';

/**
 * Messages a completion worker publishes to the API process that waits for the request: domain
 * events, which the API's edge turns into its wire format. `run` identifies one execution of the job:
 * if a dead worker's job is run again, the API can tell.
 */
export type Reply = { requestId: string; run: string } & (
  | StreamEvent
  /**
   * The answer (a streamed answer's text went out as deltas: its choices are empty) and its metadata as
   * JSON text, which travels on a line of its own (see `encodeReplies`) and is written as it is.
   */
  | { type: 'done'; answer: CompletionAnswer; metadata: string }
  /** A failure. Before any delta it becomes an HTTP error; after, a final error event. */
  | { type: 'error'; failure: CompletionFailure }
);

export function cancelChannel(prefix: string): string {
  return `${prefix}:cancel`;
}

/**
 * One Redis message of replies, in order: a line of JSON per reply, and after a `done` reply a line with
 * its metadata as the worker serialised it (JSON text holds no raw line break). The API takes that line
 * as text and writes it into the response without parsing it.
 */
export function encodeReplies(replies: readonly Reply[]): string {
  let text = '';
  for (const reply of replies) {
    if (text !== '') text += '\n';
    if (reply.type === 'done') {
      const { metadata, ...head } = reply;
      text += `${JSON.stringify(head)}\n${metadata}`;
    } else text += JSON.stringify(reply);
  }
  return text;
}

/** The replies of one message, in order; throws on text that is not one. */
export function decodeReplies(message: string): Reply[] {
  const lines = message.split('\n');
  const replies: Reply[] = [];
  for (let i = 0; i < lines.length; i++) {
    const reply = JSON.parse(lines[i] as string) as Reply;
    if (reply.type === 'done') {
      const metadata = lines[++i];
      if (metadata === undefined) throw new Error('A done reply came without its metadata line.');
      reply.metadata = metadata;
    }
    replies.push(reply);
  }
  return replies;
}
