import { isDeepStrictEqual } from 'node:util';
import type { CatalogEmbeddingEntry } from '../../src/schemas/model-catalog-embedding';
import type { CatalogEntry } from '../../src/schemas/model-catalog';

const PER_MILLION = 1_000_000;
const dateOrNull = (day: string | undefined): Date | null => (day ? new Date(`${day}T00:00:00Z`) : null);

/** A catalog entry as the columns of a public `models` row (prices per token). */
export function catalogEntryToRow(entry: CatalogEntry) {
  return {
    model: entry.model,
    provider: entry.provider,
    namespace: entry.namespace,
    owner: entry.owner,
    description: entry.description,
    url: entry.url,
    context_window: entry.context_window,
    /** USD per prompt token */
    prompt_token_cost: entry.prices.prompt_per_1m / PER_MILLION,
    /** USD per completion token */
    completion_token_cost: entry.prices.completion_per_1m / PER_MILLION,
    price_unit: 'tokens',
    supports_functions: entry.capabilities.functions,
    supports_json: entry.capabilities.json,
    supports_vision: entry.capabilities.vision,
    supports_stream: entry.capabilities.stream,
    supports_n: entry.capabilities.n,
    supports_penalties: entry.capabilities.penalties,
    supports_reasoning: entry.capabilities.reasoning,
    deprecated_on: dateOrNull(entry.deprecated_on),
    until: dateOrNull(entry.until),
    is_open_source: entry.is_open_source,
    is_gdpr: entry.is_gdpr,
    is_test_model: entry.test_behaviour !== undefined,
    is_chat: true,
    is_public: true,
    default_active: entry.default_active,
    quality_profile: entry.quality,
    added_by: 'catalog',
  };
}

/** An embedding model of the catalog as a public `models` row: not a chat model, no chat capabilities, no quality profile. */
export function catalogEmbeddingEntryToRow(entry: CatalogEmbeddingEntry) {
  return {
    model: entry.model,
    provider: entry.provider,
    namespace: entry.namespace,
    owner: entry.owner,
    description: entry.description,
    url: entry.url,
    context_window: entry.context_window,
    /** USD per input token */
    prompt_token_cost: entry.prices.prompt_per_1m / PER_MILLION,
    completion_token_cost: 0,
    price_unit: 'tokens',
    supports_functions: false,
    supports_json: false,
    supports_vision: false,
    supports_stream: false,
    supports_n: false,
    supports_penalties: false,
    supports_reasoning: false,
    deprecated_on: dateOrNull(entry.deprecated_on),
    until: dateOrNull(entry.until),
    is_open_source: entry.is_open_source,
    is_gdpr: entry.is_gdpr,
    is_test_model: entry.provider === 'test',
    is_chat: false,
    is_public: true,
    default_active: entry.default_active,
    quality_profile: { overall: 0, categories: {} },
    added_by: 'catalog',
  };
}

/** A `models` row of the catalog, chat or embedding model. */
export type CatalogRow = ReturnType<typeof catalogEntryToRow> | ReturnType<typeof catalogEmbeddingEntryToRow>;
export type CatalogColumn = keyof CatalogRow;

/**
 * The catalog columns whose stored value differs from `row`. Dates compare by instant and JSON by
 * content (PostgreSQL's jsonb does not keep key order), so an unchanged entry yields none.
 */
export function changedColumns(stored: Record<CatalogColumn, unknown>, row: CatalogRow): CatalogColumn[] {
  const columns = Object.keys(row) as CatalogColumn[];
  return columns.filter((column) => !isDeepStrictEqual(stored[column], row[column]));
}
