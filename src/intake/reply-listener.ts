import { subscribeInOrder, type RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';
import type { Reply } from '../queue/replies';

export type ReplyHandler = (reply: Reply) => void;

/**
 * The API process's one subscription to its own reply channel; replies are handed to the request
 * waiting for them, without any polling.
 */
export class ReplyListener {
  private readonly handlers = new Map<string, ReplyHandler>();
  private ready: Promise<unknown> | undefined;
  /** True once subscribed: a request then waits for nothing before its job is queued. */
  subscribed = false;

  constructor(
    private readonly subscriber: Redis,
    readonly channel: string,
    private readonly logger: Logger,
  ) {}

  start(): Promise<unknown> {
    this.ready ??= subscribeInOrder(this.subscriber, this.channel, (message) => this.dispatch(message)).then(() => void (this.subscribed = true));
    return this.ready;
  }

  on(requestId: string, handler: ReplyHandler): void {
    this.handlers.set(requestId, handler);
  }

  off(requestId: string): void {
    this.handlers.delete(requestId);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.subscriber.disconnect();
  }

  /** A message is one reply, or several in order (stream events coalesced by the worker's ReplyPublisher). */
  private dispatch(message: string): void {
    let replies: Reply | Reply[];
    try {
      replies = JSON.parse(message) as Reply | Reply[];
    } catch (err) {
      this.logger.warn({ err }, 'unreadable reply');
      return;
    }
    for (const reply of Array.isArray(replies) ? replies : [replies]) this.handlers.get(reply.requestId)?.(reply);
  }
}
