import { z } from 'zod';
import { DEFAULT_BASE_URLS } from '../providers';

type Env = Record<string, string | undefined>;

/** Largest Space file accepted unless configured, in bytes (20 MiB). */
export const DEFAULT_SPACE_FILE_MAX_BYTES = 20 * 1024 * 1024;
/** Heap one file's extraction process may use unless configured, in MiB. */
export const DEFAULT_SPACE_FILE_INGEST_HEAP_MB = 512;
/** Longest one file's extraction process may run unless configured, in ms. */
export const DEFAULT_SPACE_FILE_INGEST_TIMEOUT_MS = 60_000;

/** The built-in test embedding model (`EMBEDDINGS_MODEL=test-embedding` with no base URL): vectors computed in the worker, no network. */
export const TEST_EMBEDDINGS_MODEL = 'test-embedding';

/** USD per 1M input tokens, charged to the request that embeds its query. */
const costUsdPerMtok = z.number().min(0);

const remoteEmbeddingsSchema = z.strictObject({
  backend: z.literal('openai-compatible').optional(),
  /** OpenAI-compatible base URL; `/embeddings` is appended. */
  baseUrl: z.url(),
  apiKey: z.string().min(1).optional(),
  model: z.string().min(1),
  costUsdPerMtok,
});

const testEmbeddingsSchema = z.strictObject({ backend: z.literal('test'), model: z.literal(TEST_EMBEDDINGS_MODEL), costUsdPerMtok });

const embeddingsSchema = z.discriminatedUnion('backend', [remoteEmbeddingsSchema, testEmbeddingsSchema]);
export type EmbeddingsConfig = z.infer<typeof embeddingsSchema>;

export const spaceSearchConfigSchema = z.strictObject({
  /** Largest upload, in bytes. */
  maxFileBytes: z
    .number()
    .int()
    .positive()
    .max(1024 * 1024 * 1024),
  /** Heap (V8 old generation) of the process that extracts and chunks one file, in MiB; beyond it the file fails. */
  ingestHeapMb: z
    .number()
    .int()
    .min(16)
    .max(16 * 1024),
  /** Longest that process may run, in ms; beyond it the process is killed and the file fails. */
  ingestTimeoutMs: z
    .number()
    .int()
    .min(10)
    .max(60 * 60 * 1000),
  /** null: full-text ranking only. */
  embeddings: embeddingsSchema.nullable(),
});
export type SpaceSearchConfig = z.infer<typeof spaceSearchConfigSchema>;

const ENV_OF_FIELD: Record<string, string> = {
  maxFileBytes: 'SPACE_FILE_MAX_BYTES',
  ingestHeapMb: 'SPACE_FILE_INGEST_HEAP_MB',
  ingestTimeoutMs: 'SPACE_FILE_INGEST_TIMEOUT_MS',
  'embeddings.baseUrl': 'EMBEDDINGS_BASE_URL',
  'embeddings.apiKey': 'EMBEDDINGS_API_KEY',
  'embeddings.model': 'EMBEDDINGS_MODEL',
  'embeddings.costUsdPerMtok': 'EMBEDDINGS_COST_USD_PER_MTOK',
};

/** Every environment variable `readSpaceSearchConfig` reads. */
export const SPACE_SEARCH_ENV_VARIABLES = Object.values(ENV_OF_FIELD);

const value = (text: string | undefined) => (text && text.trim() !== '' ? text.trim() : undefined);

function numberOr(text: string | undefined, fallback: number): number {
  const given = value(text);
  return given === undefined ? fallback : Number(given);
}

/** `EMBEDDINGS_MODEL=none` keeps full-text ranking even where an OpenAI key is configured. */
const EMBEDDINGS_OFF = 'none';

/**
 * Embeddings are on when any `EMBEDDINGS_*` variable is set, or when the OpenAI provider has a key
 * (its base URL and key are the defaults, as for the other OpenAI-compatible plugins). A deployment
 * with neither ranks by PostgreSQL full-text search alone. `EMBEDDINGS_MODEL=test-embedding` without
 * `EMBEDDINGS_BASE_URL` chooses the built-in test model (free unless `EMBEDDINGS_COST_USD_PER_MTOK` says otherwise).
 */
function readEmbeddings(env: Env): Record<string, unknown> | null {
  const baseUrl = value(env.EMBEDDINGS_BASE_URL);
  const model = value(env.EMBEDDINGS_MODEL);
  const apiKey = value(env.EMBEDDINGS_API_KEY) ?? value(env.OPENAI_API_KEY);
  if (model === EMBEDDINGS_OFF || (!baseUrl && !model && !apiKey)) return null;
  if (model === TEST_EMBEDDINGS_MODEL && !baseUrl) return { backend: 'test', model, costUsdPerMtok: numberOr(env.EMBEDDINGS_COST_USD_PER_MTOK, 0) };
  return {
    baseUrl: baseUrl ?? value(env.OPENAI_BASE_URL) ?? DEFAULT_BASE_URLS.openai,
    apiKey,
    model: model ?? 'text-embedding-3-small',
    // text-embedding-3-small's list price.
    costUsdPerMtok: numberOr(env.EMBEDDINGS_COST_USD_PER_MTOK, 0.02),
  };
}

/** The space-search plugin's service-wide configuration; a bad value throws naming its variable. */
export function readSpaceSearchConfig(env: Env): SpaceSearchConfig {
  const parsed = spaceSearchConfigSchema.safeParse({
    maxFileBytes: numberOr(env.SPACE_FILE_MAX_BYTES, DEFAULT_SPACE_FILE_MAX_BYTES),
    ingestHeapMb: numberOr(env.SPACE_FILE_INGEST_HEAP_MB, DEFAULT_SPACE_FILE_INGEST_HEAP_MB),
    ingestTimeoutMs: numberOr(env.SPACE_FILE_INGEST_TIMEOUT_MS, DEFAULT_SPACE_FILE_INGEST_TIMEOUT_MS),
    embeddings: readEmbeddings(env),
  });
  if (parsed.success) return Object.freeze(parsed.data);
  const problems = parsed.error.issues.map((issue) => `${ENV_OF_FIELD[issue.path.join('.')] ?? issue.path.join('.')}: ${issue.message}`);
  throw new Error(`Invalid space-search configuration: ${problems.join('; ')}`);
}
