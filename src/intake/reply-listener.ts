import { OrderedSubscriptions, type OrderedSubscriptionsOptions } from '../queue/ordered-subscriptions';
import type { Logger } from 'pino';
import { decodeReplies, type Reply } from '../queue/replies';

export type ReplyHandler = (reply: Reply) => void;

/**
 * The API process's subscription to its own reply channels (one per completion queue shard, each in its
 * shard's slot); replies are handed to the request waiting for them, without any polling.
 */
export class ReplyListener {
  private readonly handlers = new Map<string, ReplyHandler>();
  private ready: Promise<unknown> | undefined;
  private readonly subscriptions: OrderedSubscriptions;
  /** True once subscribed: a request then waits for nothing before its job is queued. */
  subscribed = false;

  constructor(
    options: Omit<OrderedSubscriptionsOptions, 'onMessage' | 'logger'>,
    private readonly logger: Logger,
  ) {
    this.subscriptions = new OrderedSubscriptions({ ...options, logger, onMessage: (message) => this.dispatch(message) });
  }

  start(): Promise<unknown> {
    this.ready ??= this.subscriptions.start().then(() => void (this.subscribed = true));
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
    this.subscriptions.close();
  }

  /** A message is one reply, or several in order (stream events coalesced by the worker's ReplyPublisher): `encodeReplies`. */
  private dispatch(message: string): void {
    let replies: Reply[];
    try {
      replies = decodeReplies(message);
    } catch (err) {
      this.logger.warn({ err }, 'unreadable reply');
      return;
    }
    for (const reply of replies) this.handlers.get(reply.requestId)?.(reply);
  }
}
