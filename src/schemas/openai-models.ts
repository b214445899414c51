import { z } from 'zod';
import { availabilityFields } from './model-availability';

/**
 * OpenAI's model object (`id`, `object`, `created`, `owned_by`), with what a client choosing a model
 * wants beside it, as OpenRouter lists it: the provider, the context window, the prices and what the
 * model supports. For the automatic model these describe nothing of its own and are null.
 */
export const modelObjectSchema = z.object({
  id: z.string().describe('The name to send as `model`.'),
  object: z.literal('model'),
  created: z.number().int().describe('Unix seconds the model entered the catalog (the automatic model: the Space was created).'),
  owned_by: z.string(),
  provider: z.string().nullable(),
  context_window: z.number().int().nullable(),
  pricing: z
    .object({ prompt: z.number(), completion: z.number(), request: z.number() })
    .nullable()
    .describe('USD per prompt token, per completion token and per request.'),
  capabilities: z
    .object({
      functions: z.boolean(),
      json: z.boolean(),
      vision: z.boolean(),
      stream: z.boolean(),
      reasoning: z.boolean().describe('Takes a reasoning setting (`reasoning_effort`, `reasoning.effort`, Anthropic `thinking`).'),
    })
    .nullable(),
  automatic: z.boolean().describe("True for the service's own name: the router picks among the Space's models for each request."),
  active: z
    .boolean()
    .describe(
      'Whether the model is switched on in the Space (the automatic name always is). A model can be on and still not answer, e.g. when its provider has no key.',
    ),
  ...availabilityFields,
});
export type ModelObject = z.infer<typeof modelObjectSchema>;

export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelObjectSchema) });
export type ModelList = z.infer<typeof modelListSchema>;

/** `GET /v1/models?all=true`: also the models that cannot answer now. */
export const modelListQuery = z.object({
  all: z
    .enum(['true', 'false'])
    .default('false')
    .transform((flag) => flag === 'true')
    .describe('`true`: every model the Space can see, those that cannot answer now with `available: false` and `unavailable_reason`.'),
});
