import { randomUUID } from 'node:crypto';
import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';

/**
 * Frees a dead worker's job lock when no one claimed the job since: the owners entry is still the dead
 * one, and the lock still holds that worker's BullMQ token (never another worker's lock). KEYS: owners
 * hash, the job's lock (one hash slot on a Redis Cluster: both carry the prefix's hash tag). ARGV: job
 * id, the owners entry seen, the dead worker's lock token.
 */
const RELEASE_IF_OWNED = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('GET', KEYS[2]) ~= ARGV[3] then return 0 end
redis.call('DEL', KEYS[2])
return 1
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

/** An owners entry: the owner's process id (a UUID), a space, the job's BullMQ lock token. */
function ownerEntry(ownerId: string, token: string): string {
  return `${ownerId} ${token}`;
}

function parseEntry(entry: string): { ownerId: string; token: string } {
  const space = entry.indexOf(' ');
  return space === -1 ? { ownerId: entry, token: '' } : { ownerId: entry.slice(0, space), token: entry.slice(space + 1) };
}

export interface JobOwnersOptions {
  redis: Redis;
  prefix: string;
  queueName: string;
  /** How often to look for jobs whose owner is gone, in ms (at most every 500 ms). */
  intervalMs: number;
  logger: Logger;
}

/**
 * Notices quickly that a worker died, without waiting for its job locks to lapse. Each worker process
 * keeps a heartbeat key (`<prefix>:<queue>:heartbeat:<owner>`, TTL HEARTBEAT_TTL_MS, renewed every
 * HEARTBEAT_INTERVAL_MS) and records each running job under its owner id. A job whose owner's heartbeat
 * expired was lost: its lock is deleted, and BullMQ's next stalled-job check puts it back in the queue.
 * The lock itself can then stay long, so a worker that is alive keeps its jobs. Plain keys only, so it
 * works the same on one Redis and on a Redis Cluster (where `CLIENT LIST` would see one node).
 */
export class JobOwners {
  /** Lock token of each job this process runs. */
  private readonly running = new Map<string, string>();
  private readonly ownerId = randomUUID();
  private heartbeat: NodeJS.Timeout | undefined;
  private reaper: NodeJS.Timeout | undefined;

  constructor(private readonly options: JobOwnersOptions) {}

  start(): void {
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
    await this.options.redis.del(this.heartbeatKey(this.ownerId)).catch(() => undefined);
  }

  /** Records this process as the job's owner (`token`: BullMQ's lock token of the job); not awaited by the job. */
  claim(jobId: string, token: string): void {
    this.running.set(jobId, token);
    this.run(this.options.redis.hset(this.ownersKey(), jobId, ownerEntry(this.ownerId, token)));
  }

  release(jobId: string): void {
    this.running.delete(jobId);
    this.run(this.options.redis.hdel(this.ownersKey(), jobId));
  }

  /** Frees the locks of jobs whose owner's heartbeat is gone. */
  async reap(): Promise<number> {
    const { redis, prefix, queueName } = this.options;
    let freed = 0;
    for (const [jobId, entry] of await this.deadEntries()) {
      const { token } = parseEntry(entry);
      freed += Number(await redis.eval(RELEASE_IF_OWNED, 2, this.ownersKey(), `${prefix}:${queueName}:${jobId}:lock`, jobId, entry, token));
    }
    if (freed > 0) this.options.logger.warn({ queue: queueName, jobs: freed }, 'jobs of a dead worker released');
    return freed;
  }

  /** Owners entries whose owner has no heartbeat, by job id. */
  private async deadEntries(): Promise<Map<string, string>> {
    const owners = Object.entries(await this.options.redis.hgetall(this.ownersKey()));
    if (owners.length === 0) return new Map();
    const ownerIds = [...new Set(owners.map(([, entry]) => parseEntry(entry).ownerId))];
    const alive = new Set<string>();
    // One EXISTS per owner: on a cluster a multi-key EXISTS must stay in one slot, and owners are few.
    await Promise.all(ownerIds.map(async (id) => ((await this.options.redis.exists(this.heartbeatKey(id))) === 1 ? alive.add(id) : undefined)));
    return new Map(owners.filter(([, entry]) => !alive.has(parseEntry(entry).ownerId)));
  }

  private beat(): void {
    this.run(this.options.redis.set(this.heartbeatKey(this.ownerId), '1', 'PX', HEARTBEAT_TTL_MS));
  }

  private heartbeatKey(ownerId: string): string {
    return `${this.options.prefix}:${this.options.queueName}:heartbeat:${ownerId}`;
  }

  private ownersKey(): string {
    return `${this.options.prefix}:${this.options.queueName}:owners`;
  }

  private run(work: Promise<unknown>): void {
    work.catch((err: unknown) => this.options.logger.warn({ err }, 'job owner not recorded'));
  }
}
