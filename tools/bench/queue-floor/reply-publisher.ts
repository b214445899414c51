import type { Redis } from 'ioredis';
import type { FloorReply } from './messages';

/** How long later stream chunks wait to share a message, in ms (as Switchyard's ReplyPublisher). */
const COALESCE_MS = 5;

interface Pending {
  replies: FloorReply[];
  timer: NodeJS.Timeout | null;
  immediate: NodeJS.Immediate | null;
}

/**
 * The floor worker's replies, one PUBLISH per API channel for whatever is ready together: a request's
 * first chunk and its end go out on the next turn of the event loop, with every other reply of that
 * channel that is ready by then (a group commit ends many requests at once); later chunks wait up to
 * COALESCE_MS. The API process reads a lone reply or an array, in order.
 */
export class FloorReplyPublisher {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly redis: Redis) {}

  /** `urgent`: a first chunk or an end, sent on the next loop turn; otherwise within COALESCE_MS. */
  publish(channel: string, reply: FloorReply, urgent: boolean): void {
    const pending = this.pending.get(channel) ?? { replies: [], timer: null, immediate: null };
    this.pending.set(channel, pending);
    const last = pending.replies.at(-1);
    // A request's chunks waiting together travel as one reply.
    if (reply.type === 'chunks' && last?.type === 'chunks' && last.id === reply.id) last.chunks.push(...reply.chunks);
    else pending.replies.push(reply);
    if (urgent) pending.immediate ??= setImmediate(() => this.flush(channel));
    else pending.timer ??= setTimeout(() => this.flush(channel), COALESCE_MS);
  }

  private flush(channel: string): void {
    const pending = this.pending.get(channel);
    if (!pending) return;
    this.pending.delete(channel);
    if (pending.timer) clearTimeout(pending.timer);
    if (pending.immediate) clearImmediate(pending.immediate);
    const { replies } = pending;
    // A lost reply ends its request by the client's timeout, as in the service.
    this.redis.publish(channel, JSON.stringify(replies.length === 1 ? replies[0] : replies)).catch(() => undefined);
  }
}
