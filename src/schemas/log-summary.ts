import { z } from 'zod';
import { uuid } from './common';
import { checkRange, logRangeFields } from './log-filters';

export const SUMMARY_DIMENSIONS = ['day', 'app', 'model'] as const;
export type SummaryDimension = (typeof SUMMARY_DIMENSIONS)[number];

const isDimension = (name: string): name is SummaryDimension => (SUMMARY_DIMENSIONS as readonly string[]).includes(name);

/** `day`, `model`, or two of `day`, `app`, `model` joined by a comma (`day,model`: each model over time). */
const groupBy = z.string().transform((value, ctx): SummaryDimension[] => {
  const names = value.split(',');
  const dimensions = names.filter(isDimension);
  if (names.length > 2 || dimensions.length !== names.length || new Set(dimensions).size !== dimensions.length) {
    ctx.addIssue({ code: 'custom', message: `must be one or two different names of ${SUMMARY_DIMENSIONS.join(', ')}, comma-separated`, input: value });
    return z.NEVER;
  }
  return dimensions;
});

export const logSummaryQuery = z
  .object({
    app_id: uuid.optional().describe('Only logs of this Space.'),
    group_by: groupBy.describe('Bucket by `day` (UTC), `app` (Space) or `model`, or by two of them comma-separated (e.g. `day,model`).'),
    ...logRangeFields,
  })
  .superRefine(checkRange);
export type LogSummaryQuery = z.output<typeof logSummaryQuery>;

const dollars = z.number().describe('USD.');

export const logSummaryBucketSchema = z
  .object({
    day: z.string().optional().describe('UTC day `YYYY-MM-DD`; present when grouped by day.'),
    app_id: uuid.nullable().optional().describe('The Space; present when grouped by app (null for logs of a deleted Space).'),
    model: z.string().nullable().optional().describe('Name of the model that answered; present when grouped by model (null when unknown).'),
    requests: z.number().int().describe('Top-level requests (sub-requests are counted in their parent).'),
    errors: z.number().int().describe('Requests whose status_code is 400 or more.'),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
    cost: dollars.describe("Sum of the requests' `total_tokens_cost`, USD."),
    savings: dollars.describe("Sum of the requests' `total_tokens_cost_savings` against the benchmark model, USD."),
  })
  .meta({ id: 'LogSummaryBucket' });
export type LogSummaryBucket = z.input<typeof logSummaryBucketSchema>;

export const logSummarySchema = z
  .object({
    object: z.literal('log.summary'),
    group_by: z.array(z.enum(SUMMARY_DIMENSIONS)),
    created_after: z.string().nullable(),
    created_before: z.string().nullable(),
    data: z.array(logSummaryBucketSchema).describe('One bucket per group that has logs, ordered by day, then Space, then model.'),
  })
  .meta({ id: 'LogSummary' });
export type LogSummaryView = z.input<typeof logSummarySchema>;
