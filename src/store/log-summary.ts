import { Prisma } from '../generated/prisma/client';
import type { LogStatus } from '../schemas/log-filters';
import type { SummaryDimension } from '../schemas/log-summary';
import type { Db } from './db';

/** Filters a log listing and a summary share. */
export interface LogRangeFilter {
  /** Inclusive. */
  createdAfter?: Date;
  /** Exclusive. */
  createdBefore?: Date;
  /** A model name (`models.model`). */
  model?: string;
  status?: LogStatus;
}

export interface SummaryFilter extends LogRangeFilter {
  orgId: string;
  appId?: string;
  groupBy: SummaryDimension[];
}

/** One group's totals, keyed by the dimensions asked for. */
export interface SummaryRow {
  day?: string;
  app_id?: string | null;
  model?: string | null;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost: number;
  savings: number;
}

/** Each dimension's column; fixed SQL, never built from input. */
const DIMENSION_SQL: Record<SummaryDimension, Prisma.Sql> = {
  day: Prisma.sql`to_char(l.added_on AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day`,
  app: Prisma.sql`l.app_id::text AS app_id`,
  model: Prisma.sql`m.model AS model`,
};
/** Ordered as the buckets are: day, then Space, then model, whatever order `group_by` names them in. */
const DIMENSION_ORDER: SummaryDimension[] = ['day', 'app', 'model'];

/** Level 3 requests are never stored; should one be, it is never counted either. */
const HIDDEN_PRIVACY_LEVEL = 3;

function conditions(filter: SummaryFilter): Prisma.Sql[] {
  const where = [
    Prisma.sql`l.org_id = ${filter.orgId}::uuid`,
    Prisma.sql`l.privacy_level <> ${HIDDEN_PRIVACY_LEVEL}`,
    // A request's own log carries its total; its sub-requests' costs are already in it.
    Prisma.sql`l.parent_id IS NULL`,
  ];
  if (filter.appId) where.push(Prisma.sql`l.app_id = ${filter.appId}::uuid`);
  if (filter.createdAfter) where.push(Prisma.sql`l.added_on >= ${filter.createdAfter}`);
  if (filter.createdBefore) where.push(Prisma.sql`l.added_on < ${filter.createdBefore}`);
  if (filter.groupBy.includes('day')) where.push(Prisma.sql`l.added_on IS NOT NULL`);
  if (filter.model) where.push(Prisma.sql`m.model = ${filter.model}`);
  if (filter.status === 'succeeded') where.push(Prisma.sql`l.status_code BETWEEN 200 AND 299`);
  if (filter.status === 'failed') where.push(Prisma.sql`l.status_code >= 400`);
  return where;
}

/** Totals of a Space's or an organization's requests per day, Space or model, computed in PostgreSQL. */
export class LogSummaryRepository {
  constructor(private readonly db: Db) {}

  summarize(filter: SummaryFilter): Promise<SummaryRow[]> {
    const dimensions = DIMENSION_ORDER.filter((dimension) => filter.groupBy.includes(dimension));
    const columns = Prisma.join(dimensions.map((dimension) => DIMENSION_SQL[dimension]));
    const ordinals = Prisma.raw(dimensions.map((_, index) => String(index + 1)).join(', '));
    // Sums are cast to float8 so they arrive as JS numbers: token counts stay far below 2^53.
    return this.db.$queryRaw<SummaryRow[]>`
      SELECT ${columns},
        count(*)::int AS requests,
        count(*) FILTER (WHERE l.status_code >= 400)::int AS errors,
        sum(l.prompt_tokens)::float8 AS prompt_tokens,
        sum(l.completion_tokens)::float8 AS completion_tokens,
        sum(l.total_tokens)::float8 AS total_tokens,
        sum(l.total_tokens_cost)::float8 AS cost,
        sum(l.total_tokens_cost_savings)::float8 AS savings
      FROM logs l LEFT JOIN models m ON m.id = l.model_id
      WHERE ${Prisma.join(conditions(filter), ' AND ')}
      GROUP BY ${ordinals}
      ORDER BY ${ordinals}`;
  }
}
