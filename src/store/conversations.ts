import type { Conversation, Prisma } from '../generated/prisma/client';
import type { PageQuery } from '../schemas/common';
import type { ConversationSettings } from '../schemas/conversations';
import type { Db } from './db';
import { afterCursor, NEWEST_FIRST, unknownCursor } from './pagination';

export type ConversationRow = Conversation;

export interface NewConversation {
  app_id: string;
  name: string;
  settings: ConversationSettings;
  added_on: Date;
  modified_on: Date;
}

/** Deleted conversations are kept (soft delete) but answer like unknown ones. */
const LIVE = { deleted_on: null };

export class ConversationRepository {
  constructor(private readonly db: Db) {}

  create(data: NewConversation): Promise<ConversationRow> {
    return this.db.conversation.create({ data: { ...data, settings: { ...data.settings } } });
  }

  findLive(appId: string, id: string): Promise<ConversationRow | null> {
    return this.db.conversation.findFirst({ where: { id, app_id: appId, ...LIVE } });
  }

  async listLive(appId: string, query: PageQuery): Promise<ConversationRow[]> {
    const where: Prisma.ConversationWhereInput = { AND: [{ app_id: appId, ...LIVE }] };
    if (query.after) {
      const cursor = await this.db.conversation.findFirst({ where: { AND: [where, { id: query.after }] }, select: { id: true, added_on: true } });
      if (!cursor) throw unknownCursor();
      where.AND = [...(where.AND as Prisma.ConversationWhereInput[]), afterCursor(cursor)];
    }
    return this.db.conversation.findMany({ where, orderBy: NEWEST_FIRST, take: query.limit + 1 });
  }

  /** Marks the conversation deleted unless it already is; null when there was nothing live to delete. */
  async softDelete(appId: string, id: string, now: Date): Promise<ConversationRow | null> {
    const { count } = await this.db.conversation.updateMany({ where: { id, app_id: appId, ...LIVE }, data: { deleted_on: now } });
    return count === 1 ? this.db.conversation.findUnique({ where: { id } }) : null;
  }
}
