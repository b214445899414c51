import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';
import type { CompletionSink } from '../domain/completion-sink';
import { ApiError } from '../errors/api-error';
import type { CompletionQueue } from '../queue/completion-queue';
import type { CompletionJobOptions } from '../queue/kept-jobs';
import type { CompletionJob } from '../queue/payloads';
import { cancelChannel, type Reply } from '../queue/replies';
import type { ReplyListener } from './reply-listener';
import { isRedisUnavailable, REDIS_RETRY_AFTER_SECONDS } from '../queue/redis-errors';

export interface GatewayOptions {
  queue: CompletionQueue;
  listener: ReplyListener;
  publisher: Redis;
  prefix: string;
  logger: Logger;
  /** How often a waiting request checks that its job is still alive, in ms. */
  livenessIntervalMs?: number;
  /** How long queueing a job may take before the request is answered 503, in ms (ENQUEUE_TIMEOUT_MS). */
  enqueueTimeoutMs?: number;
}

/**
 * Queueing a job takes a millisecond or two; one that takes longer than this, in ms of the process's own
 * time (a held event loop does not count: CompletionQueue.addWithin), waits on a Redis that is away (a
 * cluster failing over, a node unreachable: BullMQ's connection retries for ever).
 */
export const ENQUEUE_TIMEOUT_MS = 3000;

/** What a request whose job was not queued within `timeoutMs` (ENQUEUE_TIMEOUT_MS) is told. */
export function notQueuedWithin(timeoutMs: number): string {
  return `The completion queue did not take the job within ${timeoutMs} ms`;
}

/** The answer while Redis is away: nothing ran, so the client may send the request again. */
export function redisAwayError(what: string): ApiError {
  return new ApiError('service_unavailable', `${what}; retry shortly.`).withHeaders({ 'Retry-After': String(REDIS_RETRY_AFTER_SECONDS) });
}

/**
 * Tells when the client goes away before its answer is complete (the edge's connection closing early).
 * Not an AbortSignal: a completion's request needs one listener, and an AbortController per request
 * cost the API about 1.4 KB and its EventTarget's bookkeeping.
 */
export interface ClientDeparture {
  /** Calls `listener` once if the client leaves; answers what stops watching. */
  onGone(listener: () => void): () => void;
}

/**
 * API side of a completion: enqueue the job, then relay what the worker publishes on this process's
 * reply channel until the answer is complete, the client leaves, or the deadline passes.
 */
export class CompletionGateway {
  /** Requests waiting for their answer, and since when (epoch ms): what the liveness sweep checks. */
  private readonly waiting = new Map<string, Waiting>();
  /** One sweep per process, started with the first request (not one timer per waiting request). */
  private sweep: NodeJS.Timeout | undefined;

  constructor(private readonly options: GatewayOptions) {}

  /**
   * `jobOptions`: as the intake decided them (what Redis keeps of the job, kept-jobs.ts). `onQueued`: told
   * once the job is in the queue (before its first reply), never when queueing failed.
   */
  async run(
    job: CompletionJob,
    sink: CompletionSink,
    { departure, jobOptions, onQueued }: { departure: ClientDeparture; jobOptions: CompletionJobOptions; onQueued(): void },
  ): Promise<void> {
    const { listener } = this.options;
    if (!listener.subscribed) await listener.start();
    await new Promise<void>((resolve) => {
      const relay = new Relay(sink, () => finish(), once(onQueued));
      const finish = () => {
        clearTimeout(deadlineTimer);
        this.waiting.delete(job.requestId);
        stopWatching();
        listener.off(job.requestId);
        resolve();
      };
      const onAbort = () => {
        this.cancel(job.requestId);
        finish();
      };
      // Past the deadline nobody waits for the answer: stop the worker too, so the upstream call ends now.
      const onDeadline = () => {
        this.cancel(job.requestId);
        relay.fail(new ApiError('timeout', 'The completion did not finish in time.'));
      };
      const deadlineTimer = setTimeout(onDeadline, Math.max(0, job.deadline - Date.now()));
      this.watch(job.requestId, relay);
      const stopWatching = departure.onGone(onAbort);
      listener.on(job.requestId, (reply) => relay.accept(reply));
      this.enqueue(job, jobOptions, relay);
    });
  }

  /** Queues the job; past `enqueueTimeoutMs` (Redis away) the request is answered 503, and its job never runs. */
  private enqueue(job: CompletionJob, jobOptions: CompletionJobOptions, relay: Relay): void {
    const { queue, logger } = this.options;
    const timeoutMs = this.options.enqueueTimeoutMs ?? ENQUEUE_TIMEOUT_MS;
    queue.addWithin(job, jobOptions, { timeoutMs, tooLate: (requestId) => this.cancel(requestId) }).then(
      (added) => {
        if (added) return relay.queued();
        logger.warn({ request_id: job.requestId, wait_ms: timeoutMs }, 'completion not queued in time: answered 503');
        relay.fail(redisAwayError(notQueuedWithin(timeoutMs)));
      },
      (err: unknown) => {
        logger.error({ err, request_id: job.requestId }, 'could not enqueue completion');
        relay.fail(redisAwayError('The completion queue is unavailable'));
      },
    );
  }

  /**
   * Tells workers to stop the request. A job no worker has taken yet stays in the queue: the worker
   * that takes it finds it cancelled, calls no upstream and writes the request's log (499 or 504).
   */
  cancel(requestId: string): void {
    const { publisher, prefix, logger } = this.options;
    publisher.publish(cancelChannel(prefix), requestId).catch((err: unknown) => logger.warn({ err }, 'cancel not published'));
  }

  private get livenessIntervalMs(): number {
    return this.options.livenessIntervalMs ?? 5000;
  }

  private watch(requestId: string, relay: Relay): void {
    this.waiting.set(requestId, { relay, since: Date.now(), endedSeen: false });
    // Unref'd: a waiting request's socket keeps the process alive, the sweep alone does not.
    this.sweep ??= setInterval(() => this.checkWaiting(), this.livenessIntervalMs).unref();
  }

  /** Checks each request that has waited a whole interval, as its own timer used to. */
  private checkWaiting(): void {
    const due = Date.now() - this.livenessIntervalMs;
    for (const [requestId, waiting] of this.waiting) if (waiting.since <= due) this.checkAlive(requestId, waiting);
  }

  /**
   * A job whose worker died is retried by BullMQ (stalled) or ends up failed: a failed one answers now.
   * A job that ended otherwise (completed, or gone: most are removed as they complete, see
   * queue/kept-jobs.ts) published its final reply before BullMQ ended it, so that reply is here or on its
   * way: only a job still ended, and its request unanswered, at the next check lost its answer, or was
   * lost itself before it ran. Neither depends on the finished job being kept.
   */
  private checkAlive(requestId: string, waiting: Waiting): void {
    const { relay } = waiting;
    this.options.queue
      .getJobState(requestId)
      .then((state) => {
        if (state === 'failed') return this.failedJob(requestId, relay);
        const ended = state === 'completed' || state === 'unknown';
        if (ended && waiting.endedSeen) relay.fail(lostAnswerError(state));
        waiting.endedSeen = ended;
      })
      .catch(() => undefined);
  }

  /**
   * A failed job: its worker crashed twice (500), or Redis went away as the worker ended it (a failover:
   * BullMQ fails a job whose completion could not be written, with "Connection is closed" or a "MOVED"
   * its cluster client did not follow), which is a 503 with its log holding the outcome.
   */
  private failedJob(requestId: string, relay: Relay): void {
    const crashed = () => relay.fail(new ApiError('internal_error', 'The worker running this completion failed.'));
    this.options.queue.getJob(requestId).then((job) => {
      if (job && isRedisUnavailable(new Error(job.failedReason)))
        relay.fail(redisAwayError('The completion ran, but Redis went away as it ended (its log, x-switchyard-log-id, holds the outcome)'));
      else crashed();
    }, crashed);
  }
}

/**
 * A job that ended a whole interval ago and whose answer never came. Completed (kept): the reply was
 * published to a master that died with it (a failover); the request ran and its log holds the outcome.
 * Gone: the same, or Redis lost the job (a restart without persistence, a failover that lost the last
 * writes) before it ran.
 */
function lostAnswerError(state: 'completed' | 'unknown'): ApiError {
  if (state === 'completed')
    return redisAwayError('The answer was lost in a Redis failover after the completion ran (its log, x-switchyard-log-id, holds the outcome)');
  return redisAwayError('The completion job was lost by the queue (if it ran, its log, x-switchyard-log-id, holds the outcome)');
}

/** `fn`, called at most once. */
function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}

/** A request waiting for its answer, as the liveness sweep sees it. */
interface Waiting {
  relay: Relay;
  /** When it started waiting (epoch ms). */
  since: number;
  /** Whether the last sweep found its job ended (completed or gone) with no answer here (one more and the answer was lost). */
  endedSeen: boolean;
}

/** Forwards one run's replies; a second run after chunks were sent (a restarted job) ends the stream. */
class Relay {
  private run: string | undefined;
  private started = false;
  private finished = false;

  constructor(
    private readonly sink: CompletionSink,
    private readonly onFinish: () => void,
    /** The job is in the queue: a reply proves it too, should it arrive before the add's answer. */
    readonly queued: () => void,
  ) {}

  accept(reply: Reply): void {
    if (this.finished) return;
    this.queued();
    if (this.run !== undefined && reply.run !== this.run) {
      if (this.started) return this.fail(new ApiError('internal_error', 'The worker restarted while streaming; the answer is incomplete.'));
    }
    this.run = reply.run;
    if (reply.type === 'delta' || reply.type === 'step') {
      this.started = true;
      this.sink.event(reply);
      return;
    }
    this.finished = true;
    if (reply.type === 'done') this.sink.done(reply);
    else this.sink.error(reply.failure);
    this.onFinish();
  }

  fail(error: ApiError): void {
    if (this.finished) return;
    this.finished = true;
    this.sink.error(error.toFailure());
    this.onFinish();
  }
}
