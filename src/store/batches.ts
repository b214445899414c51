import type { Batch, BatchStatus, Prisma } from '../generated/prisma/client';
import type { NewOpenAiFile } from './openai-files';
import type { BatchListQuery } from '../schemas/batches';
import type { Db } from './db';
import { unknownCursor } from './pagination';

export type BatchRow = Batch;
export type NewBatch = Pick<
  Batch,
  'id' | 'org_id' | 'app_id' | 'idp_id' | 'queue_prefix' | 'endpoint' | 'input_file_id' | 'completion_window' | 'created_at' | 'expires_at'
> & { metadata: Prisma.InputJsonValue | undefined };

/** Statuses a batch never leaves. */
export const FINAL_BATCH_STATUSES: readonly BatchStatus[] = ['failed', 'completed', 'expired', 'cancelled'];

/** Batches' rows. Reads of the API are scoped by organization; the workers read by id. */
export class BatchRepository {
  constructor(private readonly db: Db) {}

  create(row: NewBatch): Promise<BatchRow> {
    return this.db.batch.create({ data: row });
  }

  find(orgId: string, id: string): Promise<BatchRow | null> {
    return this.db.batch.findFirst({ where: { id, org_id: orgId } });
  }

  byId(id: string): Promise<BatchRow | null> {
    return this.db.batch.findUnique({ where: { id } });
  }

  /** Newest first, `limit + 1` rows after the cursor batch. */
  async list(orgId: string, query: BatchListQuery): Promise<BatchRow[]> {
    const and: Prisma.BatchWhereInput[] = [{ org_id: orgId }];
    if (query.after) {
      const cursor = await this.find(orgId, query.after);
      if (!cursor) throw unknownCursor();
      and.push({ OR: [{ created_at: { lt: cursor.created_at } }, { created_at: cursor.created_at, id: { lt: cursor.id } }] });
    }
    return this.db.batch.findMany({ where: { AND: and }, orderBy: [{ created_at: 'desc' }, { id: 'desc' }], take: query.limit + 1 });
  }

  /** Moves a batch from one of `from` to `to` with the given fields; false when it was in none of them (someone else moved it). */
  async transition(id: string, from: readonly BatchStatus[], data: Prisma.BatchUpdateManyMutationInput & { status: BatchStatus }): Promise<boolean> {
    const { count } = await this.db.batch.updateMany({ where: { id, status: { in: [...from] } }, data });
    return count === 1;
  }

  /**
   * Ends a batch: its output and error files' rows and its final status in one transaction, so a
   * finaliser run twice (after a crash) leaves one set of files. false when the batch had left `from`.
   */
  async end(
    id: string,
    { from, files, data }: { from: readonly BatchStatus[]; files: NewOpenAiFile[]; data: Prisma.BatchUpdateManyMutationInput & { status: BatchStatus } },
  ): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.batch.updateMany({ where: { id, status: { in: [...from] } }, data });
      if (count !== 1) return false;
      if (files.length > 0) await tx.openAiFile.createMany({ data: files });
      return true;
    });
  }

  async setTotal(id: string, total: number): Promise<void> {
    await this.db.batch.update({ where: { id }, data: { total_count: total } });
  }

  async setCounts(id: string, counts: { total: number; completed: number; failed: number }): Promise<void> {
    await this.db.batch.update({ where: { id }, data: { total_count: counts.total, completed_count: counts.completed, failed_count: counts.failed } });
  }

  /** Batches this deployment's workers must (still) coordinate: every one it accepted that is not in a final status. */
  unfinished(queuePrefix: string): Promise<{ id: string }[]> {
    return this.db.batch.findMany({ where: { queue_prefix: queuePrefix, status: { notIn: [...FINAL_BATCH_STATUSES] } }, select: { id: true } });
  }
}
