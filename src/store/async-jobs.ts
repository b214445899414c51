import { Prisma, type AsyncJob } from '../generated/prisma/client';
import type { AsyncJobRecord, JobOutcome, StoredJobStatus, WebhookDelivery } from '../domain/async-job';
import type { Db } from './db';

/** What a new job's record holds: it starts queued, with nothing of an answer. */
export type NewAsyncJob = Pick<AsyncJobRecord, 'id' | 'orgId' | 'appId' | 'createdAt' | 'model' | 'webhookUrl'>;

/** How a job ended, as its worker records it. */
export interface AsyncJobEnd {
  status: StoredJobStatus;
  finishedAt: Date;
  /** null: nothing of the answer is kept (privacy level 3). */
  outcome: JobOutcome | null;
  webhook: WebhookDelivery | null;
  /** Replaces the model the request named; null keeps it. */
  model: string | null;
}

/** Expired records deleted per statement by the sweep: a short lock whatever the backlog. */
const SWEEP_CHUNK = 1000;

const seconds = (at: Date): number => Math.floor(at.getTime() / 1000);
const jsonOrNull = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

function toRecord(row: AsyncJob): AsyncJobRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    appId: row.app_id,
    status: row.status as StoredJobStatus,
    createdAt: seconds(row.created_at),
    finishedAt: row.finished_at ? seconds(row.finished_at) : null,
    model: row.model,
    webhookUrl: row.webhook_url,
    outcome: row.outcome as JobOutcome | null,
    webhook: row.webhook as WebhookDelivery | null,
  };
}

/**
 * Async jobs' records (table `async_jobs`). A record is readable until its `expires_at`, whatever the
 * sweep has deleted yet; every state change is one conditional UPDATE, so a cancel and a finish that
 * race each other cannot both win.
 */
export class AsyncJobRepository {
  constructor(private readonly db: Db) {}

  async create(job: NewAsyncJob, expiresAt: Date): Promise<void> {
    await this.db.asyncJob.create({
      data: {
        id: job.id,
        org_id: job.orgId,
        app_id: job.appId,
        status: 'queued',
        created_at: new Date(job.createdAt * 1000),
        model: job.model,
        webhook_url: job.webhookUrl,
        expires_at: expiresAt,
      },
    });
  }

  async find(id: string, now: Date): Promise<AsyncJobRecord | null> {
    const row = await this.db.asyncJob.findFirst({ where: { id, expires_at: { gt: now } } });
    return row ? toRecord(row) : null;
  }

  async delete(id: string): Promise<void> {
    await this.db.asyncJob.deleteMany({ where: { id } });
  }

  /** Marks the job cancelled if it is still queued; false when it was not (ended, expired or unknown). */
  async cancelQueued(id: string, now: Date): Promise<boolean> {
    const { count } = await this.db.asyncJob.updateMany({
      where: { id, status: 'queued', expires_at: { gt: now } },
      data: { status: 'cancelled', finished_at: now },
    });
    return count === 1;
  }

  /**
   * Records the end of a job still queued (one that ended otherwise, cancelled, keeps what it has), and
   * moves its expiry to `expiresAt` either way. Answers the status it has now; null when it had expired.
   */
  async finishQueued(id: string, end: AsyncJobEnd, { now, expiresAt }: { now: Date; expiresAt: Date }): Promise<StoredJobStatus | null> {
    // Every SET expression reads the row as it was, so `status = 'queued'` is the same test in each.
    const rows = await this.db.$queryRaw<{ status: string }[]>`
      UPDATE async_jobs SET
        status = CASE WHEN status = 'queued' THEN ${end.status} ELSE status END,
        finished_at = CASE WHEN status = 'queued' THEN ${end.finishedAt.toISOString()}::timestamptz ELSE finished_at END,
        outcome = CASE WHEN status = 'queued' THEN ${jsonOrNull(end.outcome)}::jsonb ELSE outcome END,
        webhook = CASE WHEN status = 'queued' THEN ${jsonOrNull(end.webhook)}::jsonb ELSE webhook END,
        model = CASE WHEN status = 'queued' THEN coalesce(${end.model}::text, model) ELSE model END,
        expires_at = ${expiresAt.toISOString()}::timestamptz
      WHERE id = ${id} AND expires_at > ${now.toISOString()}::timestamptz
      RETURNING status`;
    return (rows[0]?.status as StoredJobStatus | undefined) ?? null;
  }

  /** Drops the answers the Space's jobs keep; their status stays. */
  async dropOutcomes(appId: string): Promise<void> {
    await this.db.asyncJob.updateMany({ where: { app_id: appId, outcome: { not: Prisma.DbNull } }, data: { outcome: Prisma.DbNull } });
  }

  /** Updates the webhook's delivery state of a job that has not expired; its expiry stays. */
  async setWebhook(id: string, delivery: WebhookDelivery, now: Date): Promise<void> {
    await this.db.asyncJob.updateMany({ where: { id, expires_at: { gt: now } }, data: { webhook: delivery as unknown as Prisma.InputJsonValue } });
  }

  /** Deletes the records that expired by `now`, in chunks; answers how many. */
  async deleteExpired(now: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.db.$executeRaw`
        DELETE FROM async_jobs WHERE id IN (
          SELECT id FROM async_jobs WHERE expires_at <= ${now.toISOString()}::timestamptz ORDER BY expires_at LIMIT ${SWEEP_CHUNK})`;
      total += deleted;
      if (deleted < SWEEP_CHUNK) return total;
    }
  }
}
