import { z } from 'zod';

type Env = Record<string, string | undefined>;

/** OpenAI's limits on a batch input file: 200 MB and 50,000 requests. */
export const DEFAULT_FILE_MAX_BYTES = 200 * 1024 * 1024;
export const DEFAULT_BATCH_MAX_LINES = 50_000;
/** `completion_window: "24h"`, in seconds. */
export const DEFAULT_COMPLETION_WINDOW_SECONDS = 24 * 3600;

const localStoreSchema = z.strictObject({
  kind: z.literal('local'),
  /** Directory the files' bytes are kept in (created when missing). */
  dir: z.string().min(1),
});

const s3StoreSchema = z.strictObject({
  kind: z.literal('s3'),
  bucket: z.string().min(1),
  /** Absent: AWS's own endpoint for the region. */
  endpoint: z.url().optional(),
  region: z.string().min(1),
  /** Absent: the AWS SDK's default credential chain (instance role, ~/.aws, ...). */
  accessKeyId: z.string().min(1).optional(),
  secretAccessKey: z.string().min(1).optional(),
  /** `bucket` in the path rather than the host name (MinIO, most S3-compatible stores). */
  forcePathStyle: z.boolean(),
  /** Key prefix inside the bucket. */
  prefix: z.string(),
});

export const fileStoreConfigSchema = z.discriminatedUnion('kind', [localStoreSchema, s3StoreSchema]);
export type FileStoreConfig = z.infer<typeof fileStoreConfigSchema>;

export const batchConfigSchema = z.strictObject({
  fileStore: fileStoreConfigSchema,
  /** Largest file upload, in bytes (413 past it). */
  fileMaxBytes: z.number().int().positive(),
  /** Most requests (lines) in a batch input file. */
  maxLines: z.number().int().positive(),
  /** How long a batch may run before it expires, in seconds (`24h`; shorter only for tests). */
  completionWindowSeconds: z.number().int().positive(),
  /** Batch lines one worker process runs at once. */
  lineConcurrency: z.number().int().positive(),
  /** Lines of one Space's batches queued or running at once, across all workers. */
  spaceConcurrency: z.number().int().positive(),
  /** Batches one worker process coordinates at once (validation, feeding, finalising). */
  coordinatorConcurrency: z.number().int().positive(),
});
export type BatchConfig = z.infer<typeof batchConfigSchema>;

const ENV_OF_FIELD: Record<string, string> = {
  'fileStore.kind': 'FILE_STORAGE',
  'fileStore.dir': 'FILE_STORAGE_DIR',
  'fileStore.bucket': 'S3_BUCKET',
  'fileStore.endpoint': 'S3_ENDPOINT',
  'fileStore.region': 'S3_REGION',
  'fileStore.accessKeyId': 'S3_ACCESS_KEY_ID',
  'fileStore.secretAccessKey': 'S3_SECRET_ACCESS_KEY',
  'fileStore.forcePathStyle': 'S3_FORCE_PATH_STYLE',
  'fileStore.prefix': 'S3_PREFIX',
  fileMaxBytes: 'FILE_MAX_BYTES',
  maxLines: 'BATCH_MAX_LINES',
  completionWindowSeconds: 'BATCH_COMPLETION_WINDOW_SECONDS',
  lineConcurrency: 'BATCH_LINE_CONCURRENCY',
  spaceConcurrency: 'BATCH_SPACE_CONCURRENCY',
  coordinatorConcurrency: 'BATCH_COORDINATOR_CONCURRENCY',
};

/** Every environment variable `readBatchConfig` reads. */
export const BATCH_ENV_VARIABLES = Object.values(ENV_OF_FIELD);

const value = (text: string | undefined) => (text && text.trim() !== '' ? text.trim() : undefined);

function numberOr(text: string | undefined, fallback: number): number {
  const given = value(text);
  return given === undefined ? fallback : Number(given);
}

function readFileStore(env: Env): Record<string, unknown> {
  const kind = value(env.FILE_STORAGE) ?? 'local';
  if (kind !== 's3') return { kind, dir: value(env.FILE_STORAGE_DIR) ?? 'data/files' };
  return {
    kind,
    bucket: value(env.S3_BUCKET),
    endpoint: value(env.S3_ENDPOINT),
    region: value(env.S3_REGION) ?? 'us-east-1',
    accessKeyId: value(env.S3_ACCESS_KEY_ID),
    secretAccessKey: value(env.S3_SECRET_ACCESS_KEY),
    forcePathStyle: (value(env.S3_FORCE_PATH_STYLE) ?? 'false') === 'true',
    prefix: value(env.S3_PREFIX) ?? '',
  };
}

/** Files and Batches: where file bytes are kept, the limits, and the batch workers' concurrency. Throws naming the variable. */
export function readBatchConfig(env: Env): BatchConfig {
  const parsed = batchConfigSchema.safeParse({
    fileStore: readFileStore(env),
    fileMaxBytes: numberOr(env.FILE_MAX_BYTES, DEFAULT_FILE_MAX_BYTES),
    maxLines: numberOr(env.BATCH_MAX_LINES, DEFAULT_BATCH_MAX_LINES),
    completionWindowSeconds: numberOr(env.BATCH_COMPLETION_WINDOW_SECONDS, DEFAULT_COMPLETION_WINDOW_SECONDS),
    lineConcurrency: numberOr(env.BATCH_LINE_CONCURRENCY, 16),
    spaceConcurrency: numberOr(env.BATCH_SPACE_CONCURRENCY, 8),
    coordinatorConcurrency: numberOr(env.BATCH_COORDINATOR_CONCURRENCY, 16),
  });
  if (parsed.success) return Object.freeze(parsed.data);
  const problems = parsed.error.issues.map((issue) => `${ENV_OF_FIELD[issue.path.join('.')] ?? issue.path.join('.')}: ${issue.message}`);
  throw new Error(`Invalid files and batches configuration: ${problems.join('; ')}`);
}
