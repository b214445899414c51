import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Frees a dead worker's job lock when no one claimed the job since: the owners entry is still the dead
 * one, and the lock still holds that worker's BullMQ token (never another worker's lock). KEYS: owners
 * hash, the job's lock. ARGV: job id, the owners entry seen, the dead worker's lock token.
 */
const RELEASE_IF_OWNED = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('GET', KEYS[2]) ~= ARGV[3] then return 0 end
redis.call('DEL', KEYS[2])
return 1
`;

/** An owners entry: the owner's Redis client id, a space, the job's BullMQ lock token. */
function ownerEntry(clientId: string, token: string): string {
  return `${clientId} ${token}`;
}

function parseEntry(entry: string): { clientId: string; token: string } {
  const space = entry.indexOf(' ');
  return space === -1 ? { clientId: entry, token: '' } : { clientId: entry.slice(0, space), token: entry.slice(space + 1) };
}

/**
 * How long an owner must stay gone before its jobs are freed, in ms: a live worker whose connection
 * blipped reconnects (ioredis retries after 50 ms) and claims its jobs again under its new client id.
 */
export const RECONNECT_GRACE_MS = 500;

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
 * still running. An owner must still be gone RECONNECT_GRACE_MS after it was first found gone.
 */
export class JobOwners {
  /** Lock token of each job this process runs. */
  private readonly running = new Map<string, string>();
  private clientId: Promise<string> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: JobOwnersOptions) {
    // A reconnection gets a new client id: the jobs still running are claimed again under it.
    options.redis.on('ready', () => {
      this.clientId = undefined;
      for (const [jobId, token] of this.running) this.claim(jobId, token);
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

  /** Records this process as the job's owner (`token`: BullMQ's lock token of the job); not awaited by the job. */
  claim(jobId: string, token: string): void {
    this.running.set(jobId, token);
    this.run(this.ownId().then((id) => this.options.redis.hset(this.ownersKey(), jobId, ownerEntry(id, token))));
  }

  release(jobId: string): void {
    this.running.delete(jobId);
    this.run(this.options.redis.hdel(this.ownersKey(), jobId));
  }

  /** Frees the locks of jobs whose owner's connection is gone, and still gone after the grace. */
  async reap(): Promise<number> {
    const { redis, prefix, queueName } = this.options;
    const suspects = await this.deadEntries();
    if (suspects.size === 0) return 0;
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_GRACE_MS));
    let freed = 0;
    for (const [jobId, entry] of await this.deadEntries()) {
      if (suspects.get(jobId) !== entry) continue;
      const { token } = parseEntry(entry);
      freed += Number(await redis.eval(RELEASE_IF_OWNED, 2, this.ownersKey(), `${prefix}:${queueName}:${jobId}:lock`, jobId, entry, token));
    }
    if (freed > 0) this.options.logger.warn({ queue: queueName, jobs: freed }, 'jobs of a dead worker released');
    return freed;
  }

  /** Owners entries whose client is not connected, by job id. */
  private async deadEntries(): Promise<Map<string, string>> {
    const { redis } = this.options;
    const owners = Object.entries(await redis.hgetall(this.ownersKey()));
    if (owners.length === 0) return new Map();
    const live = liveClientIds(String(await redis.call('CLIENT', 'LIST', 'TYPE', 'normal')));
    return new Map(owners.filter(([, entry]) => !live.has(parseEntry(entry).clientId)));
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
