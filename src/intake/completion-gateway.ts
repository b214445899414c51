import type { Queue } from 'bullmq';
import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';
import type { CompletionSink } from '../domain/completion-sink';
import { ApiError } from '../errors/api-error';
import type { CompletionJob } from '../queue/payloads';
import { cancelChannel, type Reply } from '../queue/replies';
import type { ReplyListener } from './reply-listener';

export interface GatewayOptions {
  queue: Queue<CompletionJob>;
  listener: ReplyListener;
  publisher: Redis;
  prefix: string;
  logger: Logger;
  /** How often a waiting request checks that its job is still alive, in ms. */
  livenessIntervalMs?: number;
}

/**
 * Finished jobs kept for bull-board. At privacy level 2 the worker masks a job's request before it
 * completes, and a job that fails some other way (its worker died) is not kept, since nobody masked
 * it; level 3 keeps nothing once the job ends.
 */
const KEEP_FINISHED = { age: 3600, count: 500 } as const;
const KEEP_FAILED = { age: 24 * 3600, count: 1000 } as const;

/**
 * A request body past this many bytes is not kept in Redis once its job ends, at any level: 500
 * finished and 1,000 failed jobs of 1 MiB each would hold 1.5 GB of Redis memory for a day, and the
 * request's log holds it all anyway. bull-board then shows such a job only while it runs.
 */
export const MAX_KEPT_BODY_BYTES = 64 * 1024;

/** What the queue keeps of a job once it ends: by privacy level, and nothing of a large request. */
export interface Retention {
  privacyLevel: number;
  /** The request body's size in bytes, when the edge knows it. */
  bodyBytes?: number;
}

export function retentionFor({ privacyLevel, bodyBytes = 0 }: Retention): { removeOnComplete: true | typeof KEEP_FINISHED; removeOnFail: true | typeof KEEP_FAILED } {
  if (privacyLevel >= 3 || bodyBytes > MAX_KEPT_BODY_BYTES) return { removeOnComplete: true, removeOnFail: true };
  if (privacyLevel === 2) return { removeOnComplete: KEEP_FINISHED, removeOnFail: true };
  return { removeOnComplete: KEEP_FINISHED, removeOnFail: KEEP_FAILED };
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
  private readonly waiting = new Map<string, { relay: Relay; since: number }>();
  /** One sweep per process, started with the first request (not one timer per waiting request). */
  private sweep: NodeJS.Timeout | undefined;

  constructor(private readonly options: GatewayOptions) {}

  async run(job: CompletionJob, sink: CompletionSink, { departure, retention }: { departure: ClientDeparture; retention: Retention }): Promise<void> {
    const { queue, listener } = this.options;
    if (!listener.subscribed) await listener.start();
    await new Promise<void>((resolve) => {
      const relay = new Relay(sink, () => finish());
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
      queue.add('completion', job, { jobId: job.requestId, attempts: 1, ...retentionFor(retention) }).catch((err: unknown) => {
        this.options.logger.error({ err, request_id: job.requestId }, 'could not enqueue completion');
        relay.fail(new ApiError('service_unavailable', 'The completion queue is unavailable; try again shortly.'));
      });
    });
  }

  /**
   * Tells workers to stop the request. A job no worker has taken yet stays in the queue: the worker
   * that takes it finds it cancelled, calls no upstream and writes the request's log (499 or 504).
   */
  private cancel(requestId: string): void {
    const { publisher, prefix, logger } = this.options;
    publisher.publish(cancelChannel(prefix), requestId).catch((err: unknown) => logger.warn({ err }, 'cancel not published'));
  }

  private get livenessIntervalMs(): number {
    return this.options.livenessIntervalMs ?? 5000;
  }

  private watch(requestId: string, relay: Relay): void {
    this.waiting.set(requestId, { relay, since: Date.now() });
    // Unref'd: a waiting request's socket keeps the process alive, the sweep alone does not.
    this.sweep ??= setInterval(() => this.checkWaiting(), this.livenessIntervalMs).unref();
  }

  /** Checks each request that has waited a whole interval, as its own timer used to. */
  private checkWaiting(): void {
    const due = Date.now() - this.livenessIntervalMs;
    for (const [requestId, { relay, since }] of this.waiting) if (since <= due) this.checkAlive(requestId, relay);
  }

  /** A job whose worker died is retried by BullMQ (stalled) or ends up failed: a failed one answers now. */
  private checkAlive(requestId: string, relay: Relay): void {
    this.options.queue
      .getJobState(requestId)
      .then((state) => {
        if (state === 'failed') relay.fail(new ApiError('internal_error', 'The worker running this completion failed.'));
        else if (state === 'unknown') relay.fail(new ApiError('internal_error', 'The completion job was lost.'));
      })
      .catch(() => undefined);
  }
}

/** Forwards one run's replies; a second run after chunks were sent (a restarted job) ends the stream. */
class Relay {
  private run: string | undefined;
  private started = false;
  private finished = false;

  constructor(
    private readonly sink: CompletionSink,
    private readonly onFinish: () => void,
  ) {}

  accept(reply: Reply): void {
    if (this.finished) return;
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
    if (reply.type === 'done') this.sink.done(reply.result);
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
