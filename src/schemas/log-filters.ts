import { z } from 'zod';
import { storableDateTime } from './common';

/** A calendar day (`2026-11-24`), read as midnight UTC. */
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * An instant a date-range filter starts or ends at: an ISO 8601 date-time with its offset, or a
 * calendar day meaning its midnight UTC. Within the years PostgreSQL can hold.
 */
const instant = z
  .string()
  .refine((value) => (ISO_DAY.test(value) ? storableDateTime.safeParse(`${value}T00:00:00Z`).success : storableDateTime.safeParse(value).success), {
    message: 'must be an ISO 8601 date (2026-11-24) or date-time with offset (2026-11-24T09:30:00Z)',
  })
  .transform((value) => new Date(ISO_DAY.test(value) ? `${value}T00:00:00Z` : value));

/** What "succeeded" and "failed" mean for a log's `status_code` (-1, unknown, is neither). */
export const LOG_STATUSES = ['succeeded', 'failed'] as const;
export type LogStatus = (typeof LOG_STATUSES)[number];

/** Filters the list and the summary share; the range is half-open: `created_after` ≤ added_on < `created_before`. */
export const logRangeFields = {
  created_after: instant.optional().describe('Only logs added at or after this instant (ISO 8601 date-time with offset, or a date meaning its midnight UTC).'),
  created_before: instant.optional().describe('Only logs added before this instant (same forms as `created_after`).'),
  model: z.string().min(1).max(200).optional().describe("Only logs answered by a model of this name (the Model's `model`, e.g. `gpt-4o-mini`)."),
  status: z.enum(LOG_STATUSES).optional().describe("'succeeded': status_code 200–299; 'failed': status_code 400 or more."),
};

/** A range whose end is not after its start selects nothing: a mistake, named on `created_before`. */
export function checkRange(query: { created_after?: Date; created_before?: Date }, ctx: z.RefinementCtx): void {
  if (query.created_after && query.created_before && query.created_before <= query.created_after) {
    ctx.addIssue({ code: 'custom', path: ['created_before'], message: 'must be later than created_after', input: query.created_before });
  }
}

/** The instants as a filter reads them; re-exported so callers need not know the wire names. */
export interface LogRange {
  createdAfter?: Date;
  createdBefore?: Date;
}
