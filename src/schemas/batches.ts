import { z } from 'zod';

export const BATCH_STATUSES = ['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled'] as const;
export type BatchStatusName = (typeof BATCH_STATUSES)[number];

/** The only endpoint and window supported for now. */
export const BATCH_ENDPOINT = '/v1/chat/completions';
export const COMPLETION_WINDOW = '24h';

const batchId = z.string().regex(/^batch_[A-Za-z0-9]+$/);
export const batchIdParams = z.object({ batch_id: batchId });

export const createBatchBody = z
  .strictObject({
    input_file_id: z.string().min(1).max(200).describe('A file uploaded with `purpose: batch`.'),
    endpoint: z.string().min(1).max(200).describe('Only `/v1/chat/completions` for now.'),
    completion_window: z.string().min(1).max(20).describe('Only `24h`.'),
    metadata: z
      .record(z.string().max(64), z.string().max(512))
      .refine((value) => Object.keys(value).length <= 16, 'at most 16 keys')
      .nullable()
      .optional(),
    output_expires_after: z.unknown().optional().describe("Accepted for OpenAI's SDK and ignored: output files are kept until deleted."),
  })
  .meta({ id: 'CreateBatch' });
export type CreateBatchBody = z.infer<typeof createBatchBody>;

export const batchErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  param: z.string().nullable(),
  /** 1-based line of the input file. */
  line: z.number().int().nullable(),
});
export type BatchLineError = z.infer<typeof batchErrorSchema>;

const epochSeconds = z.number().int().nullable();

export const batchSchema = z
  .object({
    id: z.string(),
    object: z.literal('batch'),
    endpoint: z.string(),
    errors: z.object({ object: z.literal('list'), data: z.array(batchErrorSchema) }).nullable(),
    input_file_id: z.string(),
    completion_window: z.string(),
    status: z.enum(BATCH_STATUSES),
    output_file_id: z.string().nullable(),
    error_file_id: z.string().nullable(),
    created_at: z.number().int(),
    in_progress_at: epochSeconds,
    expires_at: epochSeconds,
    finalizing_at: epochSeconds,
    completed_at: epochSeconds,
    failed_at: epochSeconds,
    expired_at: epochSeconds,
    cancelling_at: epochSeconds,
    cancelled_at: epochSeconds,
    request_counts: z.object({ total: z.number().int(), completed: z.number().int(), failed: z.number().int() }),
    metadata: z.record(z.string(), z.string()).nullable(),
  })
  .meta({ id: 'Batch' });
export type BatchView = z.input<typeof batchSchema>;

export const batchListQuery = z.object({
  after: batchId.optional().describe('Return the batches after this id (the `last_id` of the previous page).'),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('How many batches to return, 1 to 100.'),
});
export type BatchListQuery = z.infer<typeof batchListQuery>;
