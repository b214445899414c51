import type { Logger } from 'pino';
import { publishInOrder, subscribeInOrder, type RedisClient } from './redis';

/** How often each channel of a cluster subscription is probed, in ms. */
const PROBE_MS = 2000;
/** What starts a probe message: never the start of a reply (JSON). */
const PROBE_MARK = '\u0000probe:';

export interface OrderedSubscriptionsOptions {
  /** A new connection for subscribing (the infrastructure's `dedicatedRedis`). */
  connect(): RedisClient;
  /** Where probes are published from (the service's own connection). */
  publisher: RedisClient;
  /** Whether Redis is a cluster: there, each channel gets a connection of its own, probed and repaired. */
  clustered: boolean;
  channels: readonly string[];
  onMessage(message: string): void;
  logger: Logger;
  probeMs?: number;
}

/**
 * Subscriptions to channels that `publishInOrder` writes to, kept alive across a cluster's failover.
 *
 * On one server: one connection for every channel (ioredis subscribes again after a reconnect). On a
 * cluster, ioredis' sharded subscriptions do not always follow a failover: with two channels on the
 * master that died, only one came back on the promoted replica (ioredis 5.11, a 6-node loopback
 * cluster; a new connection subscribed at once to both). So each channel has a connection of its own,
 * and a probe is published on it every PROBE_MS: a channel whose probes stop arriving (two in a row,
 * though published) gets a new connection. Its old one is closed first, so no message arrives twice.
 * Three commands a second per 6 channels; none per request.
 */
export class OrderedSubscriptions {
  private readonly connections: RedisClient[] = [];
  /** Per channel: the last probe published (its number), and the last one that arrived. */
  private readonly sent: number[];
  private readonly seen: number[];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: OrderedSubscriptionsOptions) {
    this.sent = options.channels.map(() => 0);
    this.seen = options.channels.map(() => 0);
  }

  async start(): Promise<void> {
    const { channels, clustered } = this.options;
    if (!clustered) {
      this.connections.push(this.options.connect());
      await subscribeInOrder(this.connections[0] as RedisClient, channels, (message) => this.options.onMessage(message));
      return;
    }
    await Promise.all(channels.map((_, index) => this.subscribe(index)));
    this.timer = setInterval(() => this.probe(), this.options.probeMs ?? PROBE_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    for (const connection of this.connections) connection.disconnect();
  }

  private async subscribe(index: number): Promise<void> {
    const connection = this.options.connect();
    this.connections[index] = connection;
    await subscribeInOrder(connection, [this.options.channels[index] as string], (message) => this.receive(index, message));
  }

  private receive(index: number, message: string): void {
    if (!message.startsWith(PROBE_MARK)) return this.options.onMessage(message);
    this.seen[index] = Math.max(this.seen[index] ?? 0, Number(message.slice(PROBE_MARK.length)));
  }

  /** Repairs the channels whose last two published probes never arrived, then probes every channel. */
  private probe(): void {
    this.options.channels.forEach((channel, index) => {
      const sent = this.sent[index] ?? 0;
      if (sent - (this.seen[index] ?? 0) >= 2) this.repair(index);
      const next = sent + 1;
      // Counted as sent once Redis took it: a probe lost with a node that is away says nothing of the subscription.
      publishInOrder(this.options.publisher, channel, `${PROBE_MARK}${next}`).then(
        () => void (this.sent[index] = Math.max(this.sent[index] ?? 0, next)),
        () => undefined,
      );
    });
  }

  private repair(index: number): void {
    this.options.logger.warn({ channel: this.options.channels[index] }, 'reply subscription lost (a failover): subscribing again on a new connection');
    this.connections[index]?.disconnect();
    this.seen[index] = this.sent[index] ?? 0;
    this.subscribe(index).catch((err: unknown) => this.options.logger.warn({ err }, 'reply subscription not renewed'));
  }
}
