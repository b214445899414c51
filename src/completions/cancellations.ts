import type { Redis } from 'ioredis';
import { cancelChannel } from './replies';

/**
 * The worker's side of cancellation: the API publishes a request id when its client leaves, and the
 * worker running that request aborts it (closing the upstream connection).
 */
export class Cancellations {
  private readonly running = new Map<string, AbortController>();
  private ready: Promise<unknown> | undefined;

  constructor(
    private readonly subscriber: Redis,
    private readonly prefix: string,
  ) {}

  start(): Promise<unknown> {
    this.ready ??= this.subscriber.subscribe(cancelChannel(this.prefix)).then(() => {
      this.subscriber.on('message', (_channel: string, requestId: string) => this.running.get(requestId)?.abort());
    });
    return this.ready;
  }

  /** A signal that fires when the request is cancelled; call the returned release when it is over. */
  track(requestId: string): { signal: AbortSignal; release: () => void } {
    const controller = new AbortController();
    this.running.set(requestId, controller);
    return { signal: controller.signal, release: () => this.running.delete(requestId) };
  }
}
