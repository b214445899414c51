import { randomUUID } from 'node:crypto';
import { finishesWithinLoopTime } from '../domain/finishes-within';
import { Queue, type ConnectionOptions, type Job, type JobsOptions, type JobState } from 'bullmq';
import { shardIndexOf, type CompletionShard } from './completion-shards';
import type { CompletionJobOptions } from './kept-jobs';
import type { CompletionJob } from './payloads';

/**
 * The completion queue: one BullMQ queue per shard, a request's job in the shard of its id. Callers that
 * know a request id reach its job as with one queue; workers take every shard (`shards`).
 */
export class CompletionQueue {
  readonly shards: readonly Queue<CompletionJob>[];
  /** Per shard, until when (epoch ms) new requests keep away from it: its last add failed or timed out. */
  private readonly awayUntil: number[];

  constructor(
    readonly layout: readonly CompletionShard[],
    connection: ConnectionOptions,
  ) {
    this.shards = layout.map(({ name, prefix }) => new Queue<CompletionJob>(name, { connection, prefix }));
    this.awayUntil = layout.map(() => 0);
  }

  /**
   * A new request's id, in a shard whose master answered its last add: while one master of a cluster
   * fails over, new requests go to the shards of the others. Ids are random, so a few draws find one;
   * when every shard is away (one Redis server, down), any id will do.
   */
  newRequestId(now = Date.now()): string {
    let id = randomUUID();
    for (let draw = 1; draw < 4 * this.shards.length && (this.awayUntil[this.shardOf(id)] ?? 0) > now; draw++) id = randomUUID();
    return id;
  }

  /** The shard of a request. */
  shardOf(requestId: string): number {
    return shardIndexOf(requestId, this.shards.length);
  }

  /** The queue holding a request's job. */
  queueFor(requestId: string): Queue<CompletionJob> {
    return this.shards[this.shardOf(requestId)] as Queue<CompletionJob>;
  }

  /** Adds a request's job to its shard (its job id is the request id), with the options it is given. */
  add(name: string, job: CompletionJob, options: JobsOptions): Promise<Job<CompletionJob>> {
    return this.queueFor(job.requestId).add(name, job, options);
  }

  /**
   * Adds a request's job, with the options the API decided for it (kept-jobs.ts), unless that takes longer
   * than `timeoutMs` of the process's own time (finishesWithinLoopTime: a held event loop does not count)
   * because Redis is away (BullMQ's connection waits for it for ever); answers whether it was added in time.
   * A job given up on that still lands later is taken out again, or, if a worker took it first, `tooLate` is
   * told so it can be cancelled: a request given up on never runs.
   */
  addWithin(
    job: CompletionJob,
    options: CompletionJobOptions,
    { timeoutMs, tooLate }: { timeoutMs: number; tooLate(requestId: string): void },
  ): Promise<boolean> {
    const shard = this.shardOf(job.requestId);
    const keepAway = () => (this.awayUntil[shard] = Date.now() + SHARD_AWAY_MS);
    const adding = this.add('completion', job, options);
    return finishesWithinLoopTime(adding, timeoutMs).then(
      (inTime) => {
        if (inTime) return true;
        keepAway();
        adding.then(
          (added) => added.remove().catch(() => tooLate(job.requestId)),
          () => undefined,
        );
        return false;
      },
      (err: unknown) => {
        keepAway();
        throw err;
      },
    );
  }

  getJob(requestId: string): Promise<Job<CompletionJob> | undefined> {
    return this.queueFor(requestId).getJob(requestId);
  }

  getJobState(requestId: string): Promise<JobState | 'unknown'> {
    return this.queueFor(requestId).getJobState(requestId);
  }

  /** Workers taking completions: every worker process takes every shard, so the first shard's count is theirs. */
  getWorkersCount(): Promise<number> {
    return (this.shards[0] as Queue<CompletionJob>).getWorkersCount();
  }

  /** The reply channel of a request's shard for an API process: in the shard's slot, so SPUBLISH stays on its master. */
  replyChannelFor(requestId: string, instanceId: string): string {
    return replyChannelOf(this.layout[this.shardOf(requestId)] as CompletionShard, instanceId);
  }

  /** Every reply channel of an API process, one per shard. */
  replyChannels(instanceId: string): string[] {
    return this.layout.map((shard) => replyChannelOf(shard, instanceId));
  }

  async close(): Promise<void> {
    await Promise.all(this.shards.map((queue) => queue.close()));
  }
}

/** How long new requests keep away from a shard whose add failed, in ms: about a cluster's failover. */
const SHARD_AWAY_MS = 5000;

/** `<shard prefix>:replies:<instance id>`: with one shard, `<prefix>:replies:<instance id>` as before. */
function replyChannelOf(shard: CompletionShard, instanceId: string): string {
  return `${shard.prefix}:replies:${instanceId}`;
}
