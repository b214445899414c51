import { z } from 'zod';
import { QUALITY_CATEGORIES } from '../domain/quality-categories';
import { modelSchema } from './models';

/** Servers a custom model can run on: all speak OpenAI's chat completions, each with its stream quirks. */
export const CUSTOM_MODEL_PROVIDERS = ['openai-compatible', 'ollama', 'vllm'] as const;

const probability = z.number().min(0).max(1);
const price = z.number().min(0).max(1_000_000);

const modelName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[^\s/]+$/, 'must contain no whitespace and no slash')
  .describe('The name clients send as `model`; unique among the models the organization sees.');

/** Either another model's profile, or the figures themselves (a kind left out is scored with `overall`). */
const qualityInput = z
  .union(
    [
      z.strictObject({
        like: z.string().min(1).describe("Copy the quality profile of this model (a catalog model or one of the organization's custom models), by name."),
      }),
      z.strictObject({
        overall: probability.describe('Probability of a good answer on an average prompt, 0 to 1.'),
        categories: z.partialRecord(z.enum(QUALITY_CATEGORIES), probability).default({}).describe('Per kind of prompt, 0 to 1; kinds left out use `overall`.'),
      }),
    ],
    { error: 'must be {"like": "<model name>"} or {"overall": <0 to 1>, "categories": {"<kind>": <0 to 1>}}' },
  )
  .describe('What the automatic router expects of the model: `{"like": "gpt-4o-mini"}` or `{"overall": 0.7, "categories": {"code": 0.8}}`.');
export type QualityInput = z.output<typeof qualityInput>;

const prices = z
  .strictObject({
    prompt_per_1m: price.describe('USD per 1M prompt (input) tokens.'),
    completion_per_1m: price.describe('USD per 1M completion (output) tokens.'),
  })
  .describe("List prices, USD per 1M tokens (the catalog's units); stored per token.");

const capabilities = z.strictObject({
  functions: z.boolean().default(false).describe('Takes `tools` (function calling).'),
  json: z.boolean().default(false).describe('Takes `response_format` JSON mode.'),
  vision: z.boolean().default(false).describe('Takes image inputs.'),
  stream: z.boolean().default(true).describe('Streams its answers.'),
  reasoning: z
    .boolean()
    .default(false)
    .describe("Takes `reasoning_effort` (a reasoning model); without it a request's reasoning setting is left out, with a warning."),
});

const baseUrl = z
  .string()
  .max(2000)
  .describe('Base URL of the OpenAI-compatible API, up to `/v1` (Switchyard appends `/chat/completions`), e.g. `http://gpu-box:8000/v1`.');
const apiKey = z.string().min(1).max(4000).describe('Sent as `Authorization: Bearer`; stored sealed, never shown again (see `has_api_key`).');

export const createCustomModelBody = z
  .strictObject({
    model: modelName,
    provider: z.enum(CUSTOM_MODEL_PROVIDERS).default('openai-compatible').describe('The server kind (`ollama` and `vllm` may end streams without `[DONE]`).'),
    namespace: z.string().min(1).max(200).describe("The server's own name for the model, sent upstream as `model`."),
    base_url: baseUrl,
    api_key: apiKey.optional(),
    prices: prices.default({ prompt_per_1m: 0, completion_per_1m: 0 }),
    context_window: z.number().int().min(1).max(100_000_000).describe('Tokens, prompt and completion together.'),
    capabilities: capabilities.default({ functions: false, json: false, vision: false, stream: true, reasoning: false }),
    quality: qualityInput,
    description: z.string().max(2000).default(''),
    is_gdpr: z
      .boolean()
      .default(false)
      .describe('Processed under GDPR terms (e.g. on your own premises): Spaces at privacy level 3 route only to such models.'),
  })
  .meta({ id: 'CustomModelCreate' });
export type CreateCustomModelBody = z.output<typeof createCustomModelBody>;

export const updateCustomModelBody = z
  .strictObject({
    model: modelName.optional(),
    provider: z.enum(CUSTOM_MODEL_PROVIDERS).optional(),
    namespace: z.string().min(1).max(200).optional(),
    base_url: baseUrl.optional(),
    api_key: apiKey.nullable().optional().describe('A new key; null removes it; left out keeps it.'),
    prices: prices.optional(),
    context_window: z.number().int().min(1).max(100_000_000).optional(),
    capabilities: capabilities.partial().optional(),
    quality: qualityInput.optional(),
    description: z.string().max(2000).optional(),
    is_gdpr: z.boolean().optional(),
  })
  .meta({ id: 'CustomModelUpdate' });
export type UpdateCustomModelBody = z.output<typeof updateCustomModelBody>;

export const customModelSchema = modelSchema
  .extend({
    object: z.literal('custom_model'),
    base_url: z.string(),
    has_api_key: z.boolean().describe('Whether a key is stored; the key itself is never returned.'),
    quality: z.object({ overall: z.number(), categories: z.record(z.string(), z.number()) }).describe('The quality profile the router uses.'),
  })
  .meta({ id: 'CustomModel' });
export type CustomModelView = z.input<typeof customModelSchema>;

export const customModelListSchema = z.object({ object: z.literal('list'), data: z.array(customModelSchema) }).meta({ id: 'CustomModelList' });

export const deletedCustomModelSchema = z
  .object({ id: z.string(), object: z.literal('custom_model'), deleted: z.literal(true) })
  .meta({ id: 'CustomModelDeleted' });
