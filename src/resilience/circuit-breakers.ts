import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';
import type { UpstreamError } from '../errors/upstream-error';
import { CLOSE, RECORD_FAILURE, RECORD_SUCCESSES } from './breaker-scripts';

/**
 * What a model's breaker says before a call: `closed` (call it), `probe` (its cooldown is over and
 * this worker holds the one probe allowed across all workers), `open` (skip it).
 */
export type Admission = 'closed' | 'probe' | 'open';

/** How a call ended for the breaker: only the upstream's own failures count against a model. */
export type CallOutcome = 'success' | 'failure' | 'neutral';

/** Per-model circuit breakers, as the attempt runner uses them. */
export interface ModelBreakers {
  /**
   * What the breaker says; at once (no promise) unless the model's cooldown is over and the probe must be
   * won through Redis: every call asks, and a promise costs each of them a turn of the microtask queue.
   */
  admit(modelId: string): Admission | Promise<Admission>;
  /** Whether the model's cooldown is running, as this process knows it (no round trip). */
  isOpen(modelId: string): boolean;
  /** Never waits on Redis: the request goes on while the outcome is recorded. */
  record(modelId: string, outcome: CallOutcome, admission: Admission): void;
}

/**
 * 429, 5xx, timeouts and broken connections or streams count against a model; a request the
 * upstream refused (400), refused credentials or a cancelled call say nothing about its health.
 */
export function outcomeOf(error: UpstreamError): CallOutcome {
  return error.retryable ? 'failure' : 'neutral';
}

export interface BreakerSettings {
  /** Failures within a window that may open a breaker. */
  minFailures: number;
  /** Share of the window's calls that must have failed (0 to 1). */
  failureRatio: number;
  windowMs: number;
  /** First cooldown, in ms; doubled after each failed probe up to `maxCooldownMs`. */
  cooldownMs: number;
  maxCooldownMs: number;
}

export interface BreakerConnections {
  /** Shared connection for the scripts. */
  redis: Redis;
  /** A connection of its own for the subscription. */
  subscriber: Redis;
  prefix: string;
  logger: Logger;
}

/** The Redis hash of open breakers: model id → epoch ms its cooldown ends (read by the metrics too). */
export function openBreakersKey(prefix: string): string {
  return `${prefix}:breakers:open`;
}

/** How long one worker holds the probe of a model whose cooldown is over, in ms, unless it ends sooner. */
const PROBE_LOCK_MS = 30_000;
/** How often the successes counted in this process are added to the shared windows, in ms. */
const SUCCESS_FLUSH_MS = 1000;

/**
 * Circuit breakers shared by every worker through Redis. Each process keeps a local view of the open
 * breakers (loaded at start, then kept current by pub/sub), so a call to a healthy model costs no
 * round trip; failures are sent at once and successes in batches, neither awaited by the request.
 */
export class RedisCircuitBreakers implements ModelBreakers {
  /** Model id → epoch ms its cooldown ends, for the open breakers. */
  private readonly openUntil = new Map<string, number>();
  private readonly successes = new Map<string, number>();
  private readonly flushTimer: NodeJS.Timeout;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly connections: BreakerConnections,
    private readonly settings: BreakerSettings,
  ) {
    this.flushTimer = setInterval(() => this.flushSuccesses(), SUCCESS_FLUSH_MS);
    this.flushTimer.unref();
  }

  /** Subscribes to state changes, then loads the breakers already open. */
  start(): Promise<void> {
    this.ready ??= this.subscribe();
    return this.ready;
  }

  admit(modelId: string): Admission | Promise<Admission> {
    const until = this.openUntil.get(modelId);
    if (until === undefined) return 'closed';
    if (Date.now() < until) return 'open';
    return this.probe(modelId);
  }

  /** The one probe of a model whose cooldown is over, across all workers: this worker's if it wins the lock. */
  private async probe(modelId: string): Promise<Admission> {
    try {
      const won = await this.connections.redis.set(this.probeKey(modelId), '1', 'PX', PROBE_LOCK_MS, 'NX');
      return won === 'OK' ? 'probe' : 'open';
    } catch (err) {
      // Without Redis nobody can coordinate probes; calling beats skipping the model for good.
      this.connections.logger.warn({ err, model_id: modelId }, 'breaker probe lock failed');
      return 'probe';
    }
  }

  isOpen(modelId: string): boolean {
    const until = this.openUntil.get(modelId);
    return until !== undefined && Date.now() < until;
  }

  record(modelId: string, outcome: CallOutcome, admission: Admission): void {
    if (outcome === 'failure') this.recordFailure(modelId);
    else if (outcome === 'success' && this.openUntil.has(modelId)) this.closeBreaker(modelId);
    else if (outcome === 'success') this.successes.set(modelId, (this.successes.get(modelId) ?? 0) + 1);
    else if (admission === 'probe') this.run(this.connections.redis.del(this.probeKey(modelId)), 'breaker probe release failed');
  }

  /** Stops the batching; the connections belong to the caller. */
  stop(): void {
    clearInterval(this.flushTimer);
    this.flushSuccesses();
  }

  private recordFailure(modelId: string): void {
    const { minFailures, failureRatio, windowMs, cooldownMs, maxCooldownMs } = this.settings;
    const args = [modelId, Date.now(), windowMs, minFailures, failureRatio, cooldownMs, maxCooldownMs, this.channel()];
    const script = this.connections.redis.eval(RECORD_FAILURE, 3, this.stateKey(modelId), this.openKey(), this.probeKey(modelId), ...args);
    this.run(
      script.then((until) => {
        if (Number(until) > 0) this.applyChange(modelId, Number(until));
      }),
      'breaker failure not recorded',
    );
  }

  private closeBreaker(modelId: string): void {
    this.openUntil.delete(modelId);
    this.run(
      this.connections.redis.eval(CLOSE, 3, this.stateKey(modelId), this.openKey(), this.probeKey(modelId), modelId, this.channel()),
      'breaker not closed',
    );
  }

  private flushSuccesses(): void {
    const now = Date.now();
    for (const [modelId, count] of this.successes) {
      this.run(this.connections.redis.eval(RECORD_SUCCESSES, 1, this.stateKey(modelId), now, this.settings.windowMs, count), 'breaker successes not recorded');
    }
    this.successes.clear();
  }

  private async subscribe(): Promise<void> {
    const { subscriber } = this.connections;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel()) return;
      const [modelId, until] = message.split(' ');
      if (modelId) this.applyChange(modelId, Number(until));
    });
    await subscriber.subscribe(this.channel());
    await this.loadOpen();
    // Changes published while the subscription was down are lost: the open breakers are read again.
    subscriber.on('ready', () => this.run(this.loadOpen(), 'open breakers not loaded'));
  }

  /**
   * Makes the view the shared state: breakers open in Redis are opened here, and those closed in Redis
   * (their message lost while the subscription was down) are closed here, unless a change reached this
   * process while the state was being read.
   */
  private async loadOpen(): Promise<void> {
    const before = new Map(this.openUntil);
    const open = await this.connections.redis.hgetall(this.openKey());
    for (const [modelId, until] of before) {
      if (!(modelId in open) && this.openUntil.get(modelId) === until) this.applyChange(modelId, 0);
    }
    for (const [modelId, until] of Object.entries(open)) this.applyChange(modelId, Number(until));
  }

  private applyChange(modelId: string, until: number): void {
    if (until > 0) {
      if (this.openUntil.get(modelId) === until) return;
      this.openUntil.set(modelId, until);
      this.connections.logger.warn({ model_id: modelId, cooldown_until: new Date(until).toISOString() }, 'circuit breaker open');
    } else if (this.openUntil.delete(modelId)) {
      this.connections.logger.info({ model_id: modelId }, 'circuit breaker closed');
    }
  }

  private run(work: Promise<unknown>, what: string): void {
    work.catch((err: unknown) => this.connections.logger.warn({ err }, what));
  }

  private stateKey(modelId: string): string {
    return `${this.connections.prefix}:breaker:${modelId}`;
  }

  private probeKey(modelId: string): string {
    return `${this.connections.prefix}:breaker:${modelId}:probe`;
  }

  private openKey(): string {
    return openBreakersKey(this.connections.prefix);
  }

  private channel(): string {
    return `${this.connections.prefix}:breakers:changes`;
  }
}

/** Breakers that never open: for callers with no shared state to keep. */
export const NO_BREAKERS: ModelBreakers = {
  admit: () => 'closed',
  isOpen: () => false,
  record: () => undefined,
};
