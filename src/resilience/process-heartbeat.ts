import type { Logger } from 'pino';
import type { RedisClient as Redis } from '../queue/redis';

/** How often a process renews its heartbeat, in ms (as JobOwners renews its queues' heartbeats). */
export const PROCESS_HEARTBEAT_INTERVAL_MS = 250;
/** How long the heartbeat outlives its last renewal, in ms: three renewals may be missed in a row. */
export const PROCESS_HEARTBEAT_TTL_MS = 1000;

export interface ProcessHeartbeatOptions {
  redis: Redis;
  prefix: string;
  /** This process's id, as the completion claims it takes name their owner. */
  id: string;
  logger: Logger;
}

/**
 * One key per worker process (`<prefix>:process-heartbeat:<id>`), renewed as JobOwners renews its
 * queues' heartbeats (every PROCESS_HEARTBEAT_INTERVAL_MS, TTL PROCESS_HEARTBEAT_TTL_MS), so that a completion claim's
 * owner can be told alive or dead whatever the queues' names and key layout. One SET every 250 ms per
 * process, nothing per completion. Answers `isAlive` for any process id.
 */
export class ProcessHeartbeat {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ProcessHeartbeatOptions) {}

  start(): void {
    this.beat();
    this.timer ??= setInterval(() => this.beat(), PROCESS_HEARTBEAT_INTERVAL_MS);
    this.timer.unref();
  }

  /** Ends the heartbeat: claims this process still holds are taken over at once by whoever finds them. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.options.redis.del(this.keyOf(this.options.id)).catch(() => undefined);
  }

  /** Whether the process's heartbeat key exists now (a key lost in a failover reads as dead: re-check before acting). */
  async isAlive(id: string): Promise<boolean> {
    return (await this.options.redis.exists(this.keyOf(id))) === 1;
  }

  private beat(): void {
    this.options.redis
      .set(this.keyOf(this.options.id), '1', 'PX', PROCESS_HEARTBEAT_TTL_MS)
      .catch((err: unknown) => this.options.logger.warn({ err }, 'process heartbeat not renewed'));
  }

  private keyOf(id: string): string {
    return `${this.options.prefix}:process-heartbeat:${id}`;
  }
}
