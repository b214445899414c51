import { z } from 'zod';
import { dateTime, uuid } from './common';
import { availabilityFields } from './model-availability';

/** Every Model field of the contract except `parent`; also the shape of a parent. */
export const modelCoreSchema = z
  .object({
    id: uuid,
    model: z.string(),
    provider: z.string(),
    owner: z.string(),
    namespace: z.string().describe("The provider's own name for the model."),
    at: z.string(),
    context_window: z.number().int(),
    until: dateTime.nullable().describe('End of availability.'),
    deprecated_on: dateTime.nullable(),
    description: z.string(),
    url: z.string(),
    api_target: z.string().describe('Upstream base URL override; empty string for the provider default.'),
    parent_id: uuid.nullable(),
    prompt_id: uuid.nullable(),
    app_id: uuid.nullable().describe('Set for a custom model of one Space.'),
    org_id: uuid.nullable().describe('Set for a custom model of an organization.'),
    added_by: z.string(),
    added_on: dateTime,
    modified_on: dateTime,
    supports_functions: z.boolean(),
    supports_json: z.boolean(),
    supports_n: z.boolean(),
    supports_penalties: z.boolean(),
    supports_stream: z.boolean(),
    supports_vision: z.boolean(),
    supports_reasoning: z
      .boolean()
      .describe(
        'Takes a reasoning setting (`reasoning_effort`, `reasoning.effort`, Anthropic `thinking`); without it the setting is left out, with a warning.',
      ),
    prompt_token_cost: z.number().describe('USD per prompt token.'),
    completion_token_cost: z.number().describe('USD per completion token.'),
    base_cost: z.number().describe('USD per request, on top of token costs.'),
    price_unit: z.string(),
    is_rag: z.boolean(),
    is_ft: z.boolean(),
    is_open_source: z.boolean(),
    is_gdpr: z.boolean(),
    is_chat: z.boolean(),
    is_public: z.boolean(),
    is_test_model: z.boolean(),
    is_service_owner: z.boolean(),
    default_active: z.boolean(),
  })
  .meta({ id: 'ModelCore' });
export type ModelCoreView = z.input<typeof modelCoreSchema>;

/** The parent is presented one level deep, and as `{}` when the model has none. */
export const modelSchema = modelCoreSchema
  .extend({
    parent: z.union([modelCoreSchema, z.strictObject({})]).describe('The model this one derives from (without its own parent), or {} when none.'),
  })
  .meta({ id: 'Model' });
export type ModelView = z.input<typeof modelSchema>;

/** A catalog or custom model as seen from one Space. */
export const modelActiveForAppSchema = modelCoreSchema
  .pick({
    id: true,
    model: true,
    provider: true,
    owner: true,
    namespace: true,
    at: true,
    context_window: true,
    until: true,
    deprecated_on: true,
    description: true,
    url: true,
    api_target: true,
    parent_id: true,
    prompt_id: true,
  })
  .extend({
    parent: modelSchema.describe('The full model.'),
    active: z.boolean().describe('Switched on in this Space.'),
    globally_disabled: z.boolean().describe('Switched off for every Space by a service owner; such a model is never routed to.'),
    ...availabilityFields,
  })
  .meta({ id: 'ModelActiveForApp' });
export type ModelActiveForAppView = z.input<typeof modelActiveForAppSchema>;

export const setModelActiveBody = z.strictObject({ active: z.boolean() }).meta({ id: 'AppModelUpdate' });

export const MAX_FAILOVER_MODELS = 10;

export const setFailoverBody = z
  .strictObject({
    model_ids: z
      .array(uuid)
      .max(MAX_FAILOVER_MODELS)
      .superRefine((ids, ctx) => {
        const index = ids.findIndex((id, i) => ids.indexOf(id) !== i);
        if (index >= 0) ctx.addIssue({ code: 'custom', message: 'the model is already earlier in the chain', path: [index] });
      })
      .describe('The chain, first fallback first.'),
  })
  .meta({ id: 'FailoverUpdate' });

export const failoverResponse = z.object({ failover_models: z.array(modelSchema) }).meta({ id: 'FailoverChain' });

export const appModelsResponse = z
  .object({
    active_models: z.number().int().describe('Models active in the Space and not globally disabled.'),
    base_model_settings: z.array(modelActiveForAppSchema).describe('Every public catalog model, ordered by provider then model.'),
    custom_model_settings: z
      .array(modelActiveForAppSchema)
      .describe("Extra field: the organization's and the Space's own custom models, ordered by provider then model."),
    failover_models: z.array(modelSchema).describe('The failover chain, in order.'),
  })
  .meta({ id: 'AppModels' });
