import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';

/**
 * Frees the locks of running jobs whose worker is gone. BullMQ's lock token of a job is
 * `<worker id>:<n>`, so the lock itself names its owner: a lock whose owner has no heartbeat key was
 * left by a dead worker and is deleted (BullMQ's next stalled-job check then puts the job back in the
 * queue). Read and delete happen in one script, so a lock another worker took since is never freed.
 * Keys are built from ARGV[1], the queue's key base (`<prefix>:<queue>:`), which carries the prefix's hash
 * tag on a Redis Cluster: every key is in the active list's slot, as in BullMQ's own scripts. ARGV[2]:
 * the caller's own worker id, never dead in its own eyes (its heartbeat may have lapsed in a stall).
 * KEYS: the queue's active list. Returns the freed jobs' ids, each followed by its dead worker's id.
 */
const FREE_LOCKS_OF_DEAD_WORKERS = `
local base = ARGV[1]
local alive = { [ARGV[2]] = true }
local freed = {}
for _, jobId in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local lockKey = base .. jobId .. ':lock'
  local token = redis.call('GET', lockKey)
  local owner = token and string.match(token, '^(.+):%d+$')
  if owner then
    if alive[owner] == nil then alive[owner] = redis.call('EXISTS', base .. 'heartbeat:' .. owner) == 1 end
    if not alive[owner] then
      redis.call('DEL', lockKey)
      table.insert(freed, jobId)
      table.insert(freed, owner)
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
/** Dead owners are looked for at least this often, in ms (recovery after kill -9: TTL + this + BullMQ's stalled check). */
const MAX_REAP_INTERVAL_MS = 500;

export interface JobOwnersOptions {
  redis: Redis;
  prefix: string;
  queueName: string;
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
 */
export class JobOwners {
  private workerId: string | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private reaper: NodeJS.Timeout | undefined;

  constructor(private readonly options: JobOwnersOptions) {}

  /** Starts the heartbeat of the BullMQ worker `workerId` (`Worker.id`) and the search for dead ones. */
  start(workerId: string): void {
    this.workerId = workerId;
    this.beat();
    this.heartbeat ??= setInterval(() => this.beat(), HEARTBEAT_INTERVAL_MS);
    this.heartbeat.unref();
    this.reaper ??= setInterval(() => {
      this.reap().catch((err: unknown) => this.options.logger.warn({ err }, 'dead workers not checked'));
    }, Math.min(this.options.intervalMs, MAX_REAP_INTERVAL_MS));
    this.reaper.unref();
  }

  /** Stops looking for dead workers; the heartbeat goes on while this process's own jobs drain. */
  stop(): void {
    clearInterval(this.reaper);
  }

  /** After the drain: the heartbeat ends, so a job left behind (past the grace period) is freed at once. */
  async finish(): Promise<void> {
    clearInterval(this.heartbeat);
    if (this.workerId !== undefined) await this.options.redis.del(this.heartbeatKey(this.workerId)).catch(() => undefined);
  }

  /** Frees the locks of running jobs whose worker's heartbeat is gone; answers how many. */
  async reap(): Promise<number> {
    const base = this.keyBase();
    const freed = (await this.options.redis.eval(FREE_LOCKS_OF_DEAD_WORKERS, 1, `${base}active`, base, this.workerId ?? '')) as string[];
    if (freed.length === 0) return 0;
    const jobIds = freed.filter((_, i) => i % 2 === 0);
    const workers = [...new Set(freed.filter((_, i) => i % 2 === 1))];
    this.options.logger.warn({ queue: this.options.queueName, jobs: jobIds.length, job_ids: jobIds.slice(0, 20), dead_workers: workers }, 'jobs of a dead worker released');
    return jobIds.length;
  }

  private beat(): void {
    if (this.workerId === undefined) return;
    this.options.redis.set(this.heartbeatKey(this.workerId), '1', 'PX', HEARTBEAT_TTL_MS).catch((err: unknown) => this.options.logger.warn({ err }, 'heartbeat not renewed'));
  }

  private heartbeatKey(workerId: string): string {
    return `${this.keyBase()}heartbeat:${workerId}`;
  }

  /** BullMQ's key base of the queue: `<prefix>:<queue>:`. */
  private keyBase(): string {
    return `${this.options.prefix}:${this.options.queueName}:`;
  }
}
