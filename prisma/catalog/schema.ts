import { z } from 'zod';

/** Probability of a good answer, 0 to 1, overall and per kind of prompt (the router's prior). */
export const qualityProfileSchema = z.strictObject({
  overall: z.number().min(0).max(1),
  categories: z.record(z.string(), z.number().min(0).max(1)).default({}),
});
export type QualityProfile = z.infer<typeof qualityProfileSchema>;

export const TEST_MODEL_BEHAVIOURS = ['echo', 'fixed', 'slow', 'error'] as const;

export const catalogEntrySchema = z.strictObject({
  /** Name clients send as `model`. Unique in the catalog. */
  model: z.string().min(1),
  provider: z.string().min(1),
  /** The provider's own model name, sent upstream. */
  namespace: z.string().min(1),
  owner: z.string().min(1),
  description: z.string().default(''),
  url: z.string().default(''),
  context_window: z.number().int().positive(),
  /** USD per 1M tokens. */
  prices: z.strictObject({ prompt_per_1m: z.number().min(0), completion_per_1m: z.number().min(0) }),
  capabilities: z.strictObject({
    functions: z.boolean(),
    json: z.boolean(),
    vision: z.boolean(),
    stream: z.boolean(),
    n: z.boolean(),
    penalties: z.boolean(),
  }),
  deprecated_on: z.iso.date().optional(),
  until: z.iso.date().optional(),
  is_open_source: z.boolean().default(false),
  default_active: z.boolean().default(false),
  quality: qualityProfileSchema,
  /** Built-in models that answer locally with no network. */
  test_behaviour: z.enum(TEST_MODEL_BEHAVIOURS).optional(),
});
export type CatalogEntry = z.infer<typeof catalogEntrySchema>;

export const catalogSchema = z
  .strictObject({ version: z.string().min(1), models: z.array(catalogEntrySchema).min(1) })
  .superRefine((catalog, ctx) => {
    const seen = new Set<string>();
    catalog.models.forEach((entry, index) => {
      if (seen.has(entry.model)) ctx.addIssue({ code: 'custom', message: `duplicate model '${entry.model}'`, path: ['models', index, 'model'] });
      seen.add(entry.model);
    });
  });
export type Catalog = z.infer<typeof catalogSchema>;
