import type { Log, Model, Prisma } from '../generated/prisma/client';
import type { PageQuery } from '../schemas/common';
import type { LogStatus } from '../schemas/log-filters';
import { findSpaceRef, type SpaceRef } from './assistants';
import type { Db } from './db';
import type { LogRangeFilter } from './log-summary';
import { unknownCursor } from './pagination';
import { routingFeedbackStore, type FeedbackChange } from './routing-feedback';

/** A log with the model that answered (and that model's parent, for the Model shape). */
export type LogCoreRow = Log & { model: (Model & { parent: Model | null }) | null };
export type LogRow = LogCoreRow & { parent: LogCoreRow | null };

/** Level 3 requests are never stored; should one be, it stays invisible. */
const HIDDEN_PRIVACY_LEVEL = 3;
/** What a key may read of its organization's logs: everything but level 3. */
export const SHOWN_LOGS = { privacy_level: { not: HIDDEN_PRIVACY_LEVEL } };

const CORE = { model: { include: { parent: true } } } satisfies Prisma.LogInclude;
const WITH_PARENT = { ...CORE, parent: { include: CORE } } satisfies Prisma.LogInclude;
const OLDEST_FIRST = [{ timestamp: 'asc' as const }, { id: 'asc' as const }];
/** `added_on` is nullable: such rows sort after every dated one. */
const NEWEST_FIRST = [{ added_on: { sort: 'desc' as const, nulls: 'last' as const } }, { id: 'desc' as const }];

/** Rows after the cursor in NEWEST_FIRST order, nulls last. */
function afterCursor(cursor: { id: string; added_on: Date | null }): Prisma.LogWhereInput {
  if (cursor.added_on === null) return { added_on: null, id: { lt: cursor.id } };
  return { OR: [{ added_on: { lt: cursor.added_on } }, { added_on: cursor.added_on, id: { lt: cursor.id } }, { added_on: null }] };
}

/** The pipeline never stores level 3, so a hidden parent is only a defence. */
function withShownParent(row: LogRow): LogRow {
  return row.parent && row.parent.privacy_level === HIDDEN_PRIVACY_LEVEL ? { ...row, parent: null } : row;
}

/**
 * Where a reader following the logs stands: the last log it has shown, in (added_on, id) order. With
 * `id` null it has shown none, and every log added at or after `addedOn` is still to come.
 */
export interface LogCursor {
  addedOn: Date;
  id: string | null;
}

/** Rows after the cursor in OLDEST_ADDED_FIRST order. */
function pastCursor(cursor: LogCursor): Prisma.LogWhereInput {
  if (cursor.id === null) return { added_on: { gte: cursor.addedOn } };
  return { OR: [{ added_on: { gt: cursor.addedOn } }, { added_on: cursor.addedOn, id: { gt: cursor.id } }] };
}

const OLDEST_ADDED_FIRST = [{ added_on: 'asc' as const }, { id: 'asc' as const }];

export interface LogFilter extends LogRangeFilter {
  orgId: string;
  appId?: string;
  conversationId?: string;
  goodAnswer?: boolean;
  includeChildren: boolean;
}

/** The status_code range each status names; -1 (unknown) is in neither. */
const STATUS_CODES: Record<LogStatus, Prisma.IntFilter> = { succeeded: { gte: 200, lte: 299 }, failed: { gte: 400 } };

/** Date range (half-open), model name and status: the filters the list and the summary share. */
function rangeWhere(filter: LogRangeFilter): Prisma.LogWhereInput[] {
  return [
    filter.createdAfter || filter.createdBefore ? { added_on: { gte: filter.createdAfter, lt: filter.createdBefore } } : {},
    filter.model ? { model: { model: filter.model } } : {},
    filter.status ? { status_code: STATUS_CODES[filter.status] } : {},
  ];
}

export interface LogFeedback {
  good_answer?: boolean | null;
  feedback?: string;
  is_saved_for_later?: boolean;
}

/** What else a change of rating must write, worked out from the log as it was before the change. */
export type RatingEffect = (before: LogCoreRow, goodAnswer: boolean | null) => FeedbackChange | null;

export class LogRepository {
  constructor(private readonly db: Db) {}

  findSpace(appId: string): Promise<SpaceRef | null> {
    return findSpaceRef(this.db, appId);
  }

  /** The log, if it belongs to the organization and is not hidden by its privacy level. */
  async findShown(orgId: string, id: string): Promise<LogRow | null> {
    const row = await this.db.log.findFirst({ where: { id, org_id: orgId, ...SHOWN_LOGS }, include: WITH_PARENT });
    return row ? withShownParent(row) : null;
  }

  /** Sub-requests of a log, oldest first. */
  childrenOf(id: string): Promise<LogCoreRow[]> {
    return this.db.log.findMany({ where: { parent_id: id, ...SHOWN_LOGS }, include: CORE, orderBy: OLDEST_FIRST });
  }

  async list(filter: LogFilter, query: PageQuery): Promise<LogRow[]> {
    const where: Prisma.LogWhereInput = {
      AND: [
        { org_id: filter.orgId, ...SHOWN_LOGS },
        filter.appId ? { app_id: filter.appId } : {},
        filter.conversationId ? { conversation_id: filter.conversationId } : {},
        filter.goodAnswer !== undefined ? { good_answer: filter.goodAnswer } : {},
        filter.includeChildren ? {} : { parent_id: null },
        ...rangeWhere(filter),
      ],
    };
    if (query.after) {
      const cursor = await this.db.log.findFirst({ where: { AND: [where, { id: query.after }] }, select: { id: true, added_on: true } });
      if (!cursor) throw unknownCursor();
      where.AND = [...(where.AND as Prisma.LogWhereInput[]), afterCursor(cursor)];
    }
    const rows = await this.db.log.findMany({ where, orderBy: NEWEST_FIRST, take: query.limit + 1, include: WITH_PARENT });
    return rows.map(withShownParent);
  }

  /**
   * The database's clock `ms` milliseconds ago. `added_on` is the database's `now()` when the row's
   * INSERT started, so a row may commit a little after a later-stamped one; rows stamped before this
   * instant are taken as all committed once `ms` exceeds the longest time an INSERT of logs takes.
   */
  async clockAgo(ms: number): Promise<Date> {
    const [row] = await this.db.$queryRaw<[{ at: Date }]>`SELECT now() - make_interval(secs => ${ms / 1000}::float8) AS at`;
    return row.at;
  }

  /** Top-level logs after the cursor and added before `before`, oldest first (by added_on, then id). */
  async listAfter(filter: { orgId: string; appId?: string }, options: { after: LogCursor; before: Date; limit: number }): Promise<LogRow[]> {
    const rows = await this.db.log.findMany({
      where: {
        AND: [
          { org_id: filter.orgId, parent_id: null, ...SHOWN_LOGS },
          filter.appId ? { app_id: filter.appId } : {},
          { added_on: { lt: options.before } },
          pastCursor(options.after),
        ],
      },
      orderBy: OLDEST_ADDED_FIRST,
      take: options.limit,
      include: WITH_PARENT,
    });
    return rows.map(withShownParent);
  }

  async setFeedback(id: string, data: LogFeedback): Promise<void> {
    await this.db.log.update({ where: { id }, data });
  }

  /**
   * Sets the rating and writes what it teaches the router in one transaction. The log's row is
   * locked first, so the rating it had is the one this change replaces even when two ratings of the
   * same log race; re-sending the rating it already has changes no count.
   */
  async setRating(id: string, data: LogFeedback & { good_answer: boolean | null }, effect: RatingEffect): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM logs WHERE id = ${id}::uuid FOR UPDATE`;
      const before = await tx.log.findUnique({ where: { id }, include: CORE });
      await tx.log.update({ where: { id }, data });
      const change = before ? effect(before, data.good_answer) : null;
      if (change) await routingFeedbackStore.apply(tx, change);
    });
  }
}
