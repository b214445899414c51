import { z } from 'zod';
import { PROVIDER_IDS } from '../config/providers';

/** Owners of embedding models (who made them, not who serves them); `switchyard` for the built-in test model. */
const EMBEDDING_OWNERS = ['openai', 'google', 'mistral', 'meta', 'switchyard'] as const;
/** The built-in models' provider: they answer locally, with no network. */
const TEST_PROVIDER = 'test';

/**
 * An embedding model of the catalog (`embedding_models`): answers only `POST /v1/embeddings` and is never
 * a chat candidate (its row has `is_chat` false). No quality profile or chat capabilities: the router
 * does not rank embedding models, and a vector from one model means nothing to another's index.
 */
export const catalogEmbeddingEntrySchema = z
  .strictObject({
    /** Name clients send as `model`. Unique across the whole catalog. */
    model: z.string().regex(/^\S+$/, 'must be non-empty and contain no whitespace'),
    provider: z.enum([...PROVIDER_IDS, TEST_PROVIDER]),
    /** The provider's own model name, sent upstream as is. */
    namespace: z.string().min(1),
    owner: z.enum(EMBEDDING_OWNERS),
    description: z.string().min(1),
    /** The provider's documentation page; empty only for the built-in test model. */
    url: z.union([z.url({ protocol: /^https$/ }), z.literal('')]),
    /** Most tokens one input may have. */
    context_window: z.number().int().positive(),
    /** Length of the vectors the model returns when the request names no `dimensions`. */
    dimensions: z.number().int().positive(),
    /** Published list price, USD per 1M input tokens (embeddings have no completion tokens); 0 only for the test model. */
    prices: z.strictObject({ prompt_per_1m: z.number().min(0) }),
    deprecated_on: z.iso.date().optional(),
    until: z.iso.date().optional(),
    is_open_source: z.boolean().default(false),
    /** Served under GDPR terms with EU processing (or locally): the only models privacy level 3 uses. */
    is_gdpr: z.boolean().default(false),
    /** Switched on in every new Space. */
    default_active: z.boolean().default(false),
  })
  .superRefine((entry, ctx) => {
    const issue = (message: string, path: string[]) => ctx.addIssue({ code: 'custom', message, path });
    if (entry.provider === TEST_PROVIDER) {
      if (entry.owner !== 'switchyard') issue('test models are owned by switchyard', ['owner']);
      if (entry.prices.prompt_per_1m !== 0) issue('test models are free', ['prices']);
      if (entry.default_active) issue('test models are never default_active', ['default_active']);
    } else {
      if (entry.owner === 'switchyard') issue('owner switchyard is reserved for test models', ['owner']);
      if (entry.url === '') issue('upstream models need a documentation url', ['url']);
      if (entry.prices.prompt_per_1m <= 0) issue('upstream models have a positive price', ['prices', 'prompt_per_1m']);
    }
    if (entry.deprecated_on && entry.until && entry.deprecated_on > entry.until)
      ctx.addIssue({ code: 'custom', message: 'deprecated_on is after until', path: ['deprecated_on'] });
    if (entry.default_active && (entry.deprecated_on || entry.until))
      ctx.addIssue({ code: 'custom', message: 'a deprecated model cannot be default_active', path: ['default_active'] });
  });
export type CatalogEmbeddingEntry = z.infer<typeof catalogEmbeddingEntrySchema>;
