import { z } from 'zod';

/** What a file is for: `batch` (uploaded batch input) or `batch_output` (a batch's output or error file, written by Switchyard). */
export const FILE_PURPOSES = ['batch', 'batch_output'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

const fileId = z.string().regex(/^file-[A-Za-z0-9]+$/);
export const fileIdParams = z.object({ file_id: fileId });

export const openAiFileSchema = z
  .object({
    id: z.string().describe('`file-` and 24 hex digits.'),
    object: z.literal('file'),
    bytes: z.number().int(),
    created_at: z.number().int().describe('Seconds since the epoch.'),
    expires_at: z.number().int().nullable().describe('Seconds since the epoch; null: kept until deleted.'),
    filename: z.string(),
    purpose: z.enum(FILE_PURPOSES),
    status: z.literal('processed').describe("OpenAI's deprecated status: a stored file is always `processed`."),
    status_details: z.null(),
  })
  .meta({ id: 'OpenAiFile' });
export type OpenAiFileView = z.input<typeof openAiFileSchema>;

export const deletedOpenAiFileSchema = z.object({ id: z.string(), object: z.literal('file'), deleted: z.literal(true) }).meta({ id: 'OpenAiFileDeleted' });

/** What the multipart body carries; for the API description only (the route reads the body itself). */
export const openAiFileUploadBody = z
  .object({
    file: z.string().meta({ format: 'binary' }).describe('The JSONL file (`.jsonl`), one request per line.'),
    purpose: z.literal('batch').describe('Only `batch` is accepted.'),
  })
  .meta({ id: 'OpenAiFileUpload' });

export const openAiFileListQuery = z.object({
  after: fileId.optional().describe('Return the files after this id (the `last_id` of the previous page).'),
  limit: z.coerce.number().int().min(1).max(10_000).default(10_000).describe('How many files to return, 1 to 10,000 (OpenAI’s bounds).'),
  order: z.enum(['asc', 'desc']).default('desc').describe('By `created_at`.'),
  purpose: z.enum(FILE_PURPOSES).optional(),
});
export type OpenAiFileListQuery = z.infer<typeof openAiFileListQuery>;
