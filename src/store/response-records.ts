import { Prisma, type ResponseRecord } from '../generated/prisma/client';
import type { Db } from './db';

export type ResponseRow = ResponseRecord;

/** Where a caller may see responses: its organization, and its key's Space when the key has one. */
export interface ResponseScope {
  orgId: string;
  appId: string | null;
}

export interface NewResponseRecord {
  id: string;
  org_id: string;
  app_id: string;
  conversation_id: string;
  previous_response_id: string | null;
  body: Prisma.InputJsonValue | null;
}

/** Deleted responses keep their row (without content), so that one continued before stays continued. */
const LIVE = { deleted_at: null };

function scoped({ orgId, appId }: ResponseScope): Prisma.ResponseRecordWhereInput {
  return appId === null ? { org_id: orgId } : { org_id: orgId, app_id: appId };
}

export class ResponseRecords {
  constructor(private readonly db: Db) {}

  async create(record: NewResponseRecord): Promise<void> {
    const { body, ...rest } = record;
    await this.db.responseRecord.create({ data: { ...rest, body: body ?? Prisma.DbNull } });
  }

  /** A live response in scope that holds its content (was stored); null otherwise. */
  findStored(scope: ResponseScope, id: string): Promise<ResponseRow | null> {
    return this.db.responseRecord.findFirst({ where: { id, ...scoped(scope), ...LIVE, body: { not: Prisma.DbNull } } });
  }

  /** The response that continued this one, if any (deleted or not). */
  findContinuation(id: string): Promise<{ id: string } | null> {
    return this.db.responseRecord.findFirst({ where: { previous_response_id: id }, select: { id: true } });
  }

  /** Drops a stored response's content and marks it deleted; false when there was nothing live to delete. */
  async delete(scope: ResponseScope, id: string, now: Date): Promise<boolean> {
    const { count } = await this.db.responseRecord.updateMany({
      where: { id, ...scoped(scope), ...LIVE, body: { not: Prisma.DbNull } },
      data: { deleted_at: now, body: Prisma.DbNull },
    });
    return count === 1;
  }
}
