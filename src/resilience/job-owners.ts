import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';

/**
 * Frees the locks of running jobs whose worker is gone, on every watched queue at once. BullMQ's lock
 * token of a job is `<worker id>:<n>`, so the lock itself names its owner: a lock whose owner has no
 * heartbeat key was left by a dead worker and is deleted (BullMQ's next stalled-job check then puts the job
 * back in its queue). Read and delete happen in one script, so a lock another worker took since is never
 * freed. KEYS[q]: queue q's active list; ARGV[q]: its key base (`<prefix>:<queue>:`); ARGV[#KEYS + q]: the
 * caller's own worker id on it, never dead in its own eyes (its heartbeat may have lapsed in a stall), or
 * ''. The queues of one call share a prefix, whose hash tag on a Redis Cluster puts their keys in one slot, as
 * in BullMQ's own scripts (each completion shard has a prefix of its own, so a call of its own). Returns, for each freed job, its queue's position in KEYS, its id and its dead
 * worker's id.
 */
const FREE_LOCKS_OF_DEAD_WORKERS = `
local n = #KEYS
local alive = {}
local freed = {}
for q = 1, n do
  local base = ARGV[q]
  local own = ARGV[n + q]
  for _, jobId in ipairs(redis.call('LRANGE', KEYS[q], 0, -1)) do
    local lockKey = base .. jobId .. ':lock'
    local token = redis.call('GET', lockKey)
    local owner = token and string.match(token, '^(.+):%d+$')
    if owner and owner ~= own then
      local heartbeat = base .. 'heartbeat:' .. owner
      if alive[heartbeat] == nil then alive[heartbeat] = redis.call('EXISTS', heartbeat) == 1 end
      if not alive[heartbeat] then
        redis.call('DEL', lockKey)
        table.insert(freed, q)
        table.insert(freed, jobId)
        table.insert(freed, owner)
      end
    end
  end
end
return freed
`;

/** How often a worker renews its heartbeat, in ms. */
export const HEARTBEAT_INTERVAL_MS = 250;
/**
 * How long a heartbeat outlives its last renewal, in ms: an owner is dead once its heartbeat is gone, so
 * a live worker may miss three renewals in a row (a connection blip, a busy event loop) and keep its jobs.
 */
export const HEARTBEAT_TTL_MS = 1000;
/**
 * After a heartbeat or a reap of this process failed (Redis away: a failover, a restart), no lock is freed
 * for this long, in ms: every heartbeat may have lapsed while Redis was away (a promoted replica expires
 * them all at once), and the live workers need a renewal or two to write theirs again.
 */
export const REAP_GRACE_MS = 2 * HEARTBEAT_TTL_MS;
/** Dead owners are looked for at least this often, in ms (recovery after kill -9: TTL + this + BullMQ's stalled check). */
const MAX_REAP_INTERVAL_MS = 500;

/** A watched queue: its BullMQ name and key prefix. */
export interface WatchedQueue {
  name: string;
  prefix: string;
}

export interface JobOwnersOptions {
  redis: Redis;
  /** The queues watched: the running jobs of those under one prefix are looked at together, in one script. */
  queues: readonly WatchedQueue[];
  /** How often to look for jobs whose owner is gone, in ms (at most every 500 ms). */
  intervalMs: number;
  logger: Logger;
}

/**
 * Notices quickly that a worker died, without waiting for its job locks to lapse. Each BullMQ worker
 * keeps a heartbeat key (`<prefix>:<queue>:heartbeat:<worker id>`, TTL HEARTBEAT_TTL_MS, renewed every
 * HEARTBEAT_INTERVAL_MS); a running job's lock token names its worker. A job whose worker's heartbeat
 * expired was lost: its lock is deleted, and BullMQ's next stalled-job check puts it back in the queue.
 * The lock itself can then stay long, so a worker that is alive keeps its jobs. Nothing is written per
 * job: starting and finishing a job costs no round trip here. Plain keys only, so it works the same on
 * one Redis and on a Redis Cluster (where `CLIENT LIST` would see one node).
 *
 * One per process, for all its watched queues: one timer renews every heartbeat of the process (the
 * commands of one turn share a write on an auto-pipelined connection), and one script a tick looks at
 * every queue under one prefix (one script per completion shard on a cluster, whose shards have prefixes
 * of their own): 6 round trips a second from an idle worker process on one shard, where one watch per
 * queue made 18.
 */
export class JobOwners {
  /** This process's BullMQ worker id on each watched queue it works. */
  private readonly own = new Map<string, string>();
  private heartbeat: NodeJS.Timeout | undefined;
  private reaper: NodeJS.Timeout | undefined;
  /** The watched queues grouped by prefix: one script per group, whose keys share a slot. */
  private readonly byPrefix: WatchedQueue[][];
  private readonly byName: Map<string, WatchedQueue>;
  /** No lock is freed before this time (epoch ms): see REAP_GRACE_MS. */
  private quietUntil = 0;

  constructor(private readonly options: JobOwnersOptions) {
    const groups = new Map<string, WatchedQueue[]>();
    for (const queue of options.queues) groups.set(queue.prefix, [...(groups.get(queue.prefix) ?? []), queue]);
    this.byPrefix = [...groups.values()];
    this.byName = new Map(options.queues.map((queue) => [queue.name, queue]));
  }

  /** Starts the heartbeats of this process's BullMQ workers (`Worker.id`, by queue) and the search for dead ones. */
  start(workerIds: Readonly<Record<string, string>>): void {
    for (const [queueName, workerId] of Object.entries(workerIds)) this.own.set(queueName, workerId);
    this.beat();
    this.heartbeat ??= setInterval(() => this.beat(), HEARTBEAT_INTERVAL_MS);
    this.heartbeat.unref();
    this.reaper ??= setInterval(
      () => {
        this.reap().catch((err: unknown) => {
          this.redisWasAway();
          this.options.logger.warn({ err }, 'dead workers not checked');
        });
      },
      Math.min(this.options.intervalMs, MAX_REAP_INTERVAL_MS),
    );
    this.reaper.unref();
  }

  /** Stops looking for dead workers; the heartbeats go on while this process's own jobs drain. */
  stop(): void {
    clearInterval(this.reaper);
  }

  /** After the drain: the heartbeats end, so a job left behind (past the grace period) is freed at once. */
  async finish(): Promise<void> {
    clearInterval(this.heartbeat);
    await Promise.all([...this.own].map(([queueName, workerId]) => this.options.redis.del(this.heartbeatKey(queueName, workerId)).catch(() => undefined)));
  }

  /** Frees the locks of running jobs whose worker's heartbeat is gone, on every watched queue; answers how many. */
  async reap(): Promise<number> {
    if (Date.now() < this.quietUntil) return 0;
    const counts = await Promise.all(this.byPrefix.map((queues) => this.reapAmong(queues)));
    return counts.reduce((sum, n) => sum + n, 0);
  }

  private async reapAmong(queues: readonly WatchedQueue[]): Promise<number> {
    const bases = queues.map((queue) => keyBase(queue));
    const own = queues.map((queue) => this.own.get(queue.name) ?? '');
    const freed = triples(
      (await this.options.redis.eval(FREE_LOCKS_OF_DEAD_WORKERS, queues.length, ...bases.map((base) => `${base}active`), ...bases, ...own)) as (
        number | string
      )[],
    );
    for (const [position, { name: queueName }] of queues.entries()) {
      const jobs = freed.filter(([q]) => Number(q) === position + 1);
      if (jobs.length === 0) continue;
      const jobIds = jobs.map(([, jobId]) => String(jobId));
      const workers = [...new Set(jobs.map(([, , owner]) => String(owner)))];
      this.options.logger.warn(
        { queue: queueName, jobs: jobIds.length, job_ids: jobIds.slice(0, 20), dead_workers: workers },
        'jobs of a dead worker released',
      );
    }
    return freed.length;
  }

  private beat(): void {
    for (const [queueName, workerId] of this.own) {
      this.options.redis.set(this.heartbeatKey(queueName, workerId), '1', 'PX', HEARTBEAT_TTL_MS).catch((err: unknown) => {
        this.redisWasAway();
        this.options.logger.warn({ err }, 'heartbeat not renewed');
      });
    }
  }

  private redisWasAway(): void {
    this.quietUntil = Date.now() + REAP_GRACE_MS;
  }

  private heartbeatKey(queueName: string, workerId: string): string {
    const queue = this.byName.get(queueName) ?? { name: queueName, prefix: '' };
    return `${keyBase(queue)}heartbeat:${workerId}`;
  }
}

/** BullMQ's key base of a queue: `<prefix>:<queue>:`. */
function keyBase(queue: WatchedQueue): string {
  return `${queue.prefix}:${queue.name}:`;
}

/** The script's flat answer, three by three. */
function triples<T>(flat: T[]): [T, T, T][] {
  const out: [T, T, T][] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) out.push([flat[i] as T, flat[i + 1] as T, flat[i + 2] as T]);
  return out;
}
