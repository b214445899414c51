import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Frees a dead worker's job lock when the owner's connection is gone and no one else claimed the job
 * since. KEYS: owners hash, the job's lock. ARGV: job id, the dead owner's client id.
 */
const RELEASE_IF_OWNED = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1
`;

export interface JobOwnersOptions {
  /** The worker's own connection: its Redis client id names the owner, and lives as long as the process. */
  redis: Redis;
  prefix: string;
  queueName: string;
  /** How often to look for jobs whose owner is gone, in ms. */
  intervalMs: number;
  logger: Logger;
}

/**
 * Notices at once that a worker died, without waiting for its job locks to lapse. Each running job is
 * recorded with the Redis client id of its worker's connection; Redis drops a connection as soon as
 * its process dies (kill -9 included), so a job whose owner is no longer among Redis's clients was
 * lost. Its lock is deleted, and BullMQ's next stalled-job check puts it back in the queue. The lock
 * itself can then stay long, so a live but busy worker (a stalled event loop) never loses a job it is
 * still running.
 */
export class JobOwners {
  private readonly running = new Set<string>();
  private clientId: Promise<string> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: JobOwnersOptions) {
    // A reconnection gets a new client id: the jobs still running are claimed again under it.
    options.redis.on('ready', () => {
      this.clientId = undefined;
      for (const jobId of this.running) this.claim(jobId);
    });
  }

  start(): void {
    this.run(this.ownId());
    this.timer ??= setInterval(() => {
      this.reap().catch((err: unknown) => this.options.logger.warn({ err }, 'dead workers not checked'));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Records this process as the job's owner; not awaited by the job. */
  claim(jobId: string): void {
    this.running.add(jobId);
    this.run(this.ownId().then((id) => this.options.redis.hset(this.ownersKey(), jobId, id)));
  }

  release(jobId: string): void {
    this.running.delete(jobId);
    this.run(this.options.redis.hdel(this.ownersKey(), jobId));
  }

  /** Frees the locks of jobs whose owner's connection is gone. */
  async reap(): Promise<number> {
    const { redis, prefix, queueName } = this.options;
    const owners = await redis.hgetall(this.ownersKey());
    if (Object.keys(owners).length === 0) return 0;
    const live = liveClientIds(String(await redis.call('CLIENT', 'LIST', 'TYPE', 'normal')));
    let freed = 0;
    for (const [jobId, owner] of Object.entries(owners)) {
      if (live.has(owner)) continue;
      freed += Number(await redis.eval(RELEASE_IF_OWNED, 2, this.ownersKey(), `${prefix}:${queueName}:${jobId}:lock`, jobId, owner));
    }
    if (freed > 0) this.options.logger.warn({ queue: queueName, jobs: freed }, 'jobs of a dead worker released');
    return freed;
  }

  private ownId(): Promise<string> {
    this.clientId ??= this.options.redis.call('CLIENT', 'ID').then(String);
    return this.clientId;
  }

  private ownersKey(): string {
    return `${this.options.prefix}:${this.options.queueName}:owners`;
  }

  private run(work: Promise<unknown>): void {
    work.catch((err: unknown) => this.options.logger.warn({ err }, 'job owner not recorded'));
  }
}

/** The `id=` of each line of `CLIENT LIST`. */
export function liveClientIds(list: string): Set<string> {
  const ids = new Set<string>();
  for (const match of list.matchAll(/(?:^|\s)id=(\d+)/g)) if (match[1]) ids.add(match[1]);
  return ids;
}
