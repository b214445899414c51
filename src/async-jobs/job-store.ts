import type { RedisClient } from '../queue/redis';
import type { AsyncJobRecord, JobOutcome, StoredJobStatus, WebhookDelivery } from '../domain/async-job';

/**
 * Async jobs in Redis, one hash per job: plain fields for what scripts compare (`status`), JSON
 * strings for the rest (so no script re-encodes a result). Every write sets the key's TTL: a job
 * stays readable for `ttlSeconds` after it was accepted, and again after it ended.
 */

/** Marks a queued job cancelled; answers the status it had (nil: no such job). */
const CANCEL = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return nil end
if status == 'queued' then redis.call('HSET', KEYS[1], 'status', 'cancelled', 'finished_at', ARGV[1]) end
return status`;

/**
 * Records how a job ended unless it was cancelled first (a cancelled job stays cancelled, whatever
 * its run still produced). Answers the status it has now (nil: the job expired meanwhile).
 */
const FINISH = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return nil end
if status == 'queued' then
  redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finished_at', ARGV[2], 'outcome', ARGV[3], 'webhook', ARGV[4])
  if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'model', ARGV[6]) end
  status = ARGV[1]
end
redis.call('EXPIRE', KEYS[1], ARGV[5])
return status`;

/** Updates a webhook's delivery state of a job that still exists (KEEPTTL by construction: HSET keeps it). */
const SET_WEBHOOK = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'webhook', ARGV[1])
return 1`;

const nullable = (text: string | undefined): string | null => (text === undefined || text === '' ? null : text);
const parsed = <T>(text: string | undefined): T | null => (text ? (JSON.parse(text) as T) : null);

function fromHash(hash: Record<string, string>): AsyncJobRecord | null {
  if (!hash.id || !hash.status) return null;
  return {
    id: hash.id,
    orgId: hash.org_id ?? '',
    appId: hash.app_id ?? '',
    status: hash.status as StoredJobStatus,
    createdAt: Number(hash.created_at),
    finishedAt: hash.finished_at ? Number(hash.finished_at) : null,
    model: nullable(hash.model),
    webhookUrl: nullable(hash.webhook_url),
    outcome: parsed<JobOutcome>(hash.outcome),
    webhook: parsed<WebhookDelivery>(hash.webhook),
  };
}

export interface FinishedJob {
  status: StoredJobStatus;
  /** null: nothing of the answer is kept (privacy level 3). */
  outcome: JobOutcome | null;
  /** The delivery state to start with when a webhook is due, else null. */
  webhook: WebhookDelivery | null;
  /** The model that answered, which replaces the one the request named (or null, for automatic choice); null keeps it. */
  model: string | null;
}

export class AsyncJobStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {}

  private key(id: string): string {
    return `${this.prefix}:async-job:${id}`;
  }

  async create(record: Pick<AsyncJobRecord, 'id' | 'orgId' | 'appId' | 'createdAt' | 'model' | 'webhookUrl'>): Promise<void> {
    const key = this.key(record.id);
    await this.redis
      .multi()
      .hset(key, {
        id: record.id,
        org_id: record.orgId,
        app_id: record.appId,
        status: 'queued',
        created_at: String(record.createdAt),
        model: record.model ?? '',
        webhook_url: record.webhookUrl ?? '',
      })
      .expire(key, this.ttlSeconds)
      .exec();
  }

  async get(id: string): Promise<AsyncJobRecord | null> {
    return fromHash(await this.redis.hgetall(this.key(id)));
  }

  /** Forgets a job whose queueing failed. */
  async remove(id: string): Promise<void> {
    await this.redis.del(this.key(id));
  }

  /** The status the job had before (null: no such job); a queued one is cancelled now. */
  async cancel(id: string, now = Date.now()): Promise<StoredJobStatus | null> {
    return (await this.redis.eval(CANCEL, 1, this.key(id), String(Math.floor(now / 1000)))) as StoredJobStatus | null;
  }

  /**
   * The status the job ends with (a job cancelled meanwhile stays cancelled); null when it expired
   * meanwhile. A job that keeps an answer is listed under its Space, so a rise to privacy level 3 can drop it.
   */
  async finish(job: { id: string; appId: string }, finished: FinishedJob, now = Date.now()): Promise<StoredJobStatus | null> {
    const args = [finished.status, String(Math.floor(now / 1000)), finished.outcome ? JSON.stringify(finished.outcome) : '', finished.webhook ? JSON.stringify(finished.webhook) : '', String(this.ttlSeconds), finished.model ?? ''];
    if (finished.outcome) {
      const index = this.keptKey(job.appId);
      await this.redis.multi().sadd(index, job.id).expire(index, this.ttlSeconds).exec();
    }
    return (await this.redis.eval(FINISH, 1, this.key(job.id), ...args)) as StoredJobStatus | null;
  }

  /** Drops the answers the Space's jobs keep (their status stays): its privacy level rose to 3. */
  async withholdSpace(appId: string): Promise<void> {
    const index = this.keptKey(appId);
    const ids = await this.redis.smembers(index);
    // One command per key, not a pipeline: on Redis Cluster the jobs' keys live in different slots.
    await Promise.all(ids.map((id) => this.redis.hdel(this.key(id), 'outcome')));
    await this.redis.del(index);
  }

  /** The set of the Space's jobs that keep an answer. */
  private keptKey(appId: string): string {
    return `${this.prefix}:async-jobs-kept:${appId}`;
  }

  async setWebhook(id: string, delivery: WebhookDelivery): Promise<void> {
    await this.redis.eval(SET_WEBHOOK, 1, this.key(id), JSON.stringify(delivery));
  }
}
