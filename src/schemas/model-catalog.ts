import { z } from 'zod';
import { PROVIDER_IDS } from '../config/providers';
import { QUALITY_CATEGORIES } from '../domain/quality-categories';
import { catalogEmbeddingEntrySchema } from './model-catalog-embedding';

/** Catalog providers: the configured upstream providers plus the built-in `test` models. */
export const CATALOG_PROVIDERS = [...PROVIDER_IDS, 'test'] as const;
export const TEST_PROVIDER = 'test';

/** Who made the model (not who serves it): Llama on Groq is owned by `meta`. */
export const CATALOG_OWNERS = ['openai', 'anthropic', 'google', 'mistral', 'meta', 'deepseek', 'xai', 'switchyard'] as const;

export const TEST_MODEL_BEHAVIOURS = ['echo', 'fixed', 'slow', 'error'] as const;

const probability = z.number().min(0).max(1);

/** Probability of a good answer, 0 to 1, overall and for every category (the router's prior). */
export const qualityProfileSchema = z.strictObject({
  overall: probability,
  /** Every category must be present, so the router never has to guess a missing one. */
  categories: z.record(z.enum(QUALITY_CATEGORIES), probability),
});
export type QualityProfile = z.infer<typeof qualityProfileSchema>;

const catalogEntryFields = z.strictObject({
  /** Name clients send as `model`. Unique in the catalog. */
  model: z.string().regex(/^\S+$/, 'must be non-empty and contain no whitespace'),
  provider: z.enum(CATALOG_PROVIDERS),
  /** The provider's own model name, sent upstream as is. Unique per provider. */
  namespace: z.string().min(1),
  owner: z.enum(CATALOG_OWNERS),
  description: z.string().min(1),
  /** The provider's documentation page; empty only for the built-in test models. */
  url: z.union([z.url({ protocol: /^https$/ }), z.literal('')]),
  /** Tokens (prompt and completion together). */
  context_window: z.number().int().positive(),
  /** Published list prices, USD per 1M tokens. */
  prices: z.strictObject({ prompt_per_1m: z.number().min(0), completion_per_1m: z.number().min(0) }),
  capabilities: z.strictObject({
    functions: z.boolean(),
    /** OpenAI-style `response_format` JSON mode. */
    json: z.boolean(),
    vision: z.boolean(),
    stream: z.boolean(),
    /** OpenAI-style `n` (several choices in one request). */
    n: z.boolean(),
    /** `presence_penalty` / `frequency_penalty`. */
    penalties: z.boolean(),
    /** Takes a reasoning setting: OpenAI's `reasoning_effort`, Anthropic's thinking budget, Gemini's `thinkingBudget`. */
    reasoning: z.boolean(),
  }),
  /** Day the provider announced the deprecation (UTC). */
  deprecated_on: z.iso.date().optional(),
  /** Last day the provider serves the model (UTC). */
  until: z.iso.date().optional(),
  is_open_source: z.boolean().default(false),
  /**
   * Served under GDPR data-processing terms with EU processing (or locally). Spaces at privacy level 3
   * route only to such models.
   */
  is_gdpr: z.boolean().default(false),
  /** Switched on in every new Space. */
  default_active: z.boolean().default(false),
  quality: qualityProfileSchema,
  /** Built-in models that answer locally with no network. */
  test_behaviour: z.enum(TEST_MODEL_BEHAVIOURS).optional(),
});

type EntryFields = z.infer<typeof catalogEntryFields>;
type IssueSink = (message: string, path: (string | number)[]) => void;

function checkTestModel(entry: EntryFields, issue: IssueSink): void {
  if (entry.test_behaviour === undefined) {
    issue(`provider '${TEST_PROVIDER}' needs a test_behaviour`, ['test_behaviour']);
    return;
  }
  if (entry.namespace !== entry.test_behaviour) issue("a test model's namespace must equal its test_behaviour", ['namespace']);
  if (entry.prices.prompt_per_1m !== 0 || entry.prices.completion_per_1m !== 0) issue('test models are free', ['prices']);
  if (entry.default_active) issue('test models are never default_active', ['default_active']);
}

function checkUpstreamModel(entry: EntryFields, issue: IssueSink): void {
  if (entry.test_behaviour !== undefined) issue(`only provider '${TEST_PROVIDER}' has a test_behaviour`, ['test_behaviour']);
  if (entry.owner === 'switchyard') issue('owner switchyard is reserved for test models', ['owner']);
  if (entry.url === '') issue('upstream models need a documentation url', ['url']);
  if (entry.prices.prompt_per_1m <= 0) issue('upstream models have a positive price', ['prices', 'prompt_per_1m']);
  if (entry.prices.completion_per_1m <= 0) issue('upstream models have a positive price', ['prices', 'completion_per_1m']);
}

export const catalogEntrySchema = catalogEntryFields.superRefine((entry, ctx) => {
  const issue: IssueSink = (message, path) => ctx.addIssue({ code: 'custom', message, path });
  if (entry.provider === TEST_PROVIDER) checkTestModel(entry, issue);
  else checkUpstreamModel(entry, issue);
  // ISO dates compare correctly as strings.
  if (entry.deprecated_on && entry.until && entry.deprecated_on > entry.until) issue('deprecated_on is after until', ['deprecated_on']);
  if (entry.default_active && (entry.deprecated_on || entry.until)) issue('a deprecated model cannot be default_active', ['default_active']);
});
export type CatalogEntry = z.infer<typeof catalogEntrySchema>;

/**
 * The model catalog (`prisma/catalog/models.json`, seeded by `npm run db:seed`): the public models, their
 * prices, capabilities and the router's prior. `prisma/catalog/README.md` explains every key.
 */
export const catalogSchema = z
  .strictObject({
    /** Day of the catalog's last revision. */
    version: z.iso.date(),
    models: z.array(catalogEntrySchema).min(1),
    /** Models that answer `POST /v1/embeddings` only (see model-catalog-embedding.ts). */
    embedding_models: z.array(catalogEmbeddingEntrySchema).default([]),
  })
  .superRefine((catalog, ctx) => {
    const models = new Set<string>();
    const targets = new Set<string>();
    const check = (list: 'models' | 'embedding_models', entry: { model: string; provider: string; namespace: string }, index: number) => {
      const target = `${entry.provider}:${entry.namespace}`;
      if (models.has(entry.model)) ctx.addIssue({ code: 'custom', message: `duplicate model '${entry.model}'`, path: [list, index, 'model'] });
      if (targets.has(target)) ctx.addIssue({ code: 'custom', message: `duplicate provider and namespace '${target}'`, path: [list, index, 'namespace'] });
      models.add(entry.model);
      targets.add(target);
    };
    catalog.models.forEach((entry, index) => check('models', entry, index));
    catalog.embedding_models.forEach((entry, index) => check('embedding_models', entry, index));
    if (!catalog.models.some((entry) => entry.default_active)) ctx.addIssue({ code: 'custom', message: 'no default_active model', path: ['models'] });
  });
export type Catalog = z.infer<typeof catalogSchema>;
