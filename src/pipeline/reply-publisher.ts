import type { ChunkChoice } from '../domain/chat';
import { encodeReplies, type Reply } from '../queue/replies';

/** How long later stream events wait to share a Redis message, in ms. */
export const COALESCE_WINDOW_MS = 5;
/** Events one Redis message carries at most. */
export const COALESCE_MAX_EVENTS = 64;

/** What publishing a gathered delta answers: its batch's failure goes to `onError`. */
const GATHERED: Promise<void> = Promise.resolve();

/** Sends one Redis message (PUBLISH) on a channel. */
export type SendMessage = (channel: string, message: string) => Promise<unknown>;

interface Pending {
  replies: Reply[];
  /** Where each request's latest reply in `replies` is: a text delta right after it in that request joins it. */
  latest: Map<string, number>;
  timer: NodeJS.Timeout | null;
  /** The send of this batch on the next turn of the event loop, once something urgent is in it. */
  sending: Promise<void> | null;
}

/**
 * Publishes a worker's replies to the API processes, coalescing: a request's first reply and its last
 * (`done`, `error`) go out on the next turn of the event loop, taking along every reply of that channel
 * ready by then; the deltas between are gathered for up to COALESCE_WINDOW_MS (or COALESCE_MAX_EVENTS)
 * into one message holding a JSON array, in order. One channel is one API process, so replies of many
 * requests share a message: the answers a group commit of the log releases together go out as one
 * PUBLISH, a line per reply (`encodeReplies`). Text deltas of one request
 * gathered together travel as one delta, their texts joined (see `joined`): the API parses, formats and
 * writes one chunk instead of several, and the client reads the same text.
 */
export class ReplyPublisher {
  private readonly pending = new Map<string, Pending>();
  /**
   * Requests that already sent a reply and have not ended, with the run that did: their next deltas may
   * wait a little. Keyed by the request id as the job carries it (no key string made per reply).
   */
  private readonly streaming = new Map<string, string>();

  constructor(
    private readonly send: SendMessage,
    /** A gathered batch failed to go out (its requests end by their deadline). */
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Not async: a gathered delta answers one settled promise, with nothing allocated for it. */
  publish(channel: string, reply: Reply): Promise<void> {
    const urgent = this.isUrgent(reply);
    let pending = this.pending.get(channel);
    if (!pending) this.pending.set(channel, (pending = { replies: [], latest: new Map(), timer: null, sending: null }));
    const at = pending.latest.get(reply.requestId);
    const merged = at === undefined ? null : joined(pending.replies[at] as Reply, reply);
    if (merged) pending.replies[at as number] = merged;
    else pending.latest.set(reply.requestId, pending.replies.push(reply) - 1);
    if (urgent || pending.replies.length >= COALESCE_MAX_EVENTS) return this.sendSoon(channel, pending);
    pending.timer ??= setTimeout(() => void this.flush(channel).catch(this.onError), COALESCE_WINDOW_MS);
    return GATHERED;
  }

  /** Sends the channel's batch on the next turn of the event loop, with every reply ready by then. */
  private sendSoon(channel: string, pending: Pending): Promise<void> {
    pending.sending ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush(channel));
    return pending.sending;
  }

  /** Sends everything still waiting (at shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.pending.keys()].map((channel) => this.flush(channel)));
  }

  private isUrgent(reply: Reply): boolean {
    const running = this.streaming.get(reply.requestId) === reply.run;
    if (reply.type === 'done' || reply.type === 'error') {
      if (running) this.streaming.delete(reply.requestId);
      return true;
    }
    if (running) return false;
    this.streaming.set(reply.requestId, reply.run);
    return true;
  }

  private async flush(channel: string): Promise<void> {
    const pending = this.pending.get(channel);
    if (!pending) return;
    this.pending.delete(channel);
    if (pending.timer) clearTimeout(pending.timer);
    const { replies } = pending;
    if (replies.length === 0) return;
    await this.send(channel, encodeReplies(replies));
  }
}

/** A choice that is nothing but text: no role, no tool calls, not finished. */
function textOnly(choice: ChunkChoice): boolean {
  const { delta } = choice;
  return choice.finish_reason === null && typeof delta.content === 'string' && delta.role === undefined && delta.tool_calls === undefined;
}

/**
 * `next` joined onto `previous` when both are text deltas of the same run and model and one choice (the same),
 * else null: tool-call deltas, several choices, a finish or another event stay as they came.
 */
function joined(previous: Reply, next: Reply): Reply | null {
  if (previous.type !== 'delta' || next.type !== 'delta' || previous.run !== next.run || previous.model !== next.model) return null;
  const [before, ...moreBefore] = previous.choices;
  const [after, ...moreAfter] = next.choices;
  if (!before || !after || moreBefore.length > 0 || moreAfter.length > 0 || before.index !== after.index || !textOnly(before) || !textOnly(after)) return null;
  return {
    ...previous,
    choices: [{ index: before.index, delta: { content: `${before.delta.content ?? ''}${after.delta.content ?? ''}` }, finish_reason: null }],
  };
}
