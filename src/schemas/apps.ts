import { z } from 'zod';
import type { Policies, Weights } from '../domain/space-policies';
import { dateTime, int4, pageQuery, uuid } from './common';
import { featureFlagsSchema } from './feature-flags';
import { modelActiveForAppSchema, modelSchema } from './models';
import { autoToolsPatch, pluginSettingsPatch, pluginSettingsView } from './plugin-settings';
import { webhookSettingsPatch, webhookSettingsView } from './webhook-settings';
import { promptSchema } from './prompts';

export const SANDBOX_STATUSES = ['none', 'syncing', 'up_to_date', 'outdated', 'failed'] as const;
export type SandboxStatus = (typeof SANDBOX_STATUSES)[number];

const weight = z.number().min(0).max(1);
const retries = z.number().int().min(0).max(10);

export const weightsSchema = z
  .object({ cost: z.number(), latency: z.number(), quality: z.number() })
  .meta({ id: 'Weights', description: 'How much the router values low cost, low latency and high quality, each 0 to 1.' });
export type { Weights };
// The schema validates the domain's shape: a field added to one and not the other fails to compile.
weightsSchema satisfies z.ZodType<Weights>;

const FIRST_BYTE_TIMEOUT_DESCRIPTION =
  "Extra field: longest wait in ms for an upstream's first byte, and for its next byte inside a stream; then the next model is tried. Absent: the service's `UPSTREAM_FIRST_BYTE_TIMEOUT_MS`.";
const UPSTREAM_TIMEOUT_DESCRIPTION = "Extra field: longest upstream call in ms, first byte to last. Absent: the service's `UPSTREAM_TIMEOUT_MS`.";
/** Bounds of the timeout policies, in ms: long enough to be reachable, short enough to end. */
export const FIRST_BYTE_TIMEOUT_BOUNDS = { min: 100, max: 600_000 } as const;
export const UPSTREAM_TIMEOUT_BOUNDS = { min: 1_000, max: 3_600_000 } as const;

export const policiesSchema = z
  .object({
    privacy_level: z.number().int().describe('1 everything logged; 2 request and response masked; 3 nothing stored.'),
    max_cost: z.number().nullable().describe('USD a single request may cost at most; null for no limit.'),
    max_switch_model_retries: z
      .number()
      .int()
      .describe(
        'Retries on a different model after a failure: models called after the first (a model skipped while its circuit breaker is open does not count).',
      ),
    max_same_model_retries: z.number().int().describe('Retries on the same model after a failure.'),
    optimize_internal_requests: z.number().int(),
    prompt_id: uuid.nullable().describe('Prompt put in front of every request of the Space.'),
    first_byte_timeout_ms: z.number().int().optional().describe(FIRST_BYTE_TIMEOUT_DESCRIPTION),
    upstream_timeout_ms: z.number().int().optional().describe(UPSTREAM_TIMEOUT_DESCRIPTION),
  })
  .meta({ id: 'Policies' });
export type { Policies };
policiesSchema satisfies z.ZodType<Policies>;

const FEATURE_FLAGS_DESCRIPTION =
  'Extra field: feature flags for every request of the Space. The `Service-Feature-Flags` header, then `custom_headers.feature_flags`, override them per request.';

const FORWARD_FIELDS_DESCRIPTION =
  "Extra field: top-level chat-completions fields this Space's requests may carry and Switchyard passes to OpenAI-compatible providers as sent, besides the built-in ones (`top_k`, `min_p`, `repetition_penalty`, `verbosity`, `parallel_tool_calls`, ...); any other unknown field is refused with 400 `unknown_field`.";

/** A provider's body field name: what a Space may add to the forwarded fields. */
const forwardFieldName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a field name (letters, digits, underscores; at most 64)');

export const settingsSchema = z
  .object({
    assistant_id: uuid.nullable(),
    assistant_version_id: uuid.nullable(),
    instructions: z.string().nullable(),
    max_tokens: z.number().int().nullable(),
    temperature: z.number().nullable(),
    feature_flags: featureFlagsSchema.optional().describe(FEATURE_FLAGS_DESCRIPTION),
    plugins: pluginSettingsView.optional(),
    auto_tools: autoToolsPatch.optional().describe('Extra field: how `auto_tools` works in this Space (absent keys take their defaults).'),
    webhook: webhookSettingsView.optional(),
    forward_fields: z.array(z.string()).optional().describe(FORWARD_FIELDS_DESCRIPTION),
  })
  .meta({ id: 'Settings' });
export type Settings = z.infer<typeof settingsSchema>;

/** Request shapes: every key optional, merged key by key into what is stored; unknown keys are rejected. */
export const weightsPatch = z
  .strictObject({ cost: weight.optional(), latency: weight.optional(), quality: weight.optional() })
  .meta({ id: 'WeightsPatch', description: 'Each 0 to 1; after merging they must not all be zero.' });
export type WeightsPatch = z.infer<typeof weightsPatch>;

export const policiesPatch = z
  .strictObject({
    privacy_level: z.number().int().min(1).max(3).optional(),
    max_cost: z.number().positive().nullable().optional(),
    max_switch_model_retries: retries.optional(),
    max_same_model_retries: retries.optional(),
    optimize_internal_requests: int4.min(0).optional(),
    prompt_id: uuid.nullable().optional(),
    first_byte_timeout_ms: z
      .number()
      .int()
      .min(FIRST_BYTE_TIMEOUT_BOUNDS.min)
      .max(FIRST_BYTE_TIMEOUT_BOUNDS.max)
      .nullable()
      .optional()
      .describe(`${FIRST_BYTE_TIMEOUT_DESCRIPTION} null removes the Space's own value.`),
    upstream_timeout_ms: z
      .number()
      .int()
      .min(UPSTREAM_TIMEOUT_BOUNDS.min)
      .max(UPSTREAM_TIMEOUT_BOUNDS.max)
      .nullable()
      .optional()
      .describe(`${UPSTREAM_TIMEOUT_DESCRIPTION} null removes the Space's own value.`),
  })
  .meta({ id: 'PoliciesPatch' });
export type PoliciesPatch = z.infer<typeof policiesPatch>;

export const settingsPatch = z
  .strictObject({
    assistant_id: uuid.nullable().optional(),
    assistant_version_id: uuid.nullable().optional(),
    instructions: z.string().max(100_000).nullable().optional(),
    max_tokens: int4.positive().nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    feature_flags: featureFlagsSchema.optional().describe(`${FEATURE_FLAGS_DESCRIPTION} Merged flag by flag into the stored ones; unknown flags are rejected.`),
    plugins: pluginSettingsPatch.optional(),
    auto_tools: autoToolsPatch.optional(),
    webhook: webhookSettingsPatch.nullable().optional().describe("Extra field: the Space's webhook for async jobs; null removes the URL and the secret."),
    forward_fields: z
      .array(forwardFieldName)
      .max(64)
      .nullable()
      .optional()
      .describe(`${FORWARD_FIELDS_DESCRIPTION} Replaces the stored list; null removes it.`),
  })
  .meta({ id: 'SettingsPatch' });
export type SettingsPatch = z.infer<typeof settingsPatch>;

const name = z.string().min(1).max(100);
const description = z.string().max(2000);
const appLogo = z.string().max(2048).describe('URL of the logo.');

export const createAppBody = z
  .strictObject({
    name,
    description: description.optional(),
    app_logo: appLogo.optional(),
    rate_limit: int4.min(0).optional().describe('Requests per minute; 0 means no limit.'),
    weights: weightsPatch.optional(),
    policies: policiesPatch.optional(),
    settings: settingsPatch.optional(),
  })
  .meta({ id: 'AppCreate' });
export type CreateAppBody = z.infer<typeof createAppBody>;

export const updateAppBody = z
  .strictObject({
    id: uuid,
    sandbox_of: uuid.nullable().optional().describe("Must equal the Space's current value: the sandbox link cannot be changed here."),
    use_parent_custom_data: z.boolean().optional(),
    benchmark_model_id: uuid.nullable().optional().describe('A model available to the Space; null clears it.'),
    name: name.optional(),
    description: description.optional(),
    app_logo: appLogo.optional(),
    weights: weightsPatch.optional(),
    policies: policiesPatch.optional(),
    has_failover_chain: z.boolean().optional(),
    settings: settingsPatch.optional(),
    rate_limit: int4
      .min(0)
      .nullable()
      .optional()
      .describe(
        "Extra field (the spec's update has none): the Space's requests per minute, as `bootstrap --rate-limit` and `POST /v1/apps` set it; 0 or null removes the limit. Applies from the next request on, in every process. A main Space's limit is copied to its sandbox by the next sync.",
      ),
  })
  .meta({ id: 'AppUpdate' });
export type UpdateAppBody = z.infer<typeof updateAppBody>;

export const appListQuery = pageQuery;

export const spaceSchema = z
  .object({
    id: uuid,
    org_id: uuid,
    idp_id: z.string(),
    modified_by: z.string(),
    prompt_id: uuid.nullable(),
    hashed_key: z.string().nullable().describe("SHA-256 of the Space's key; null unless the caller's key may manage keys (`keys:manage`)."),
    key_end: z.string(),
    name: z.string(),
    description: z.string(),
    app_logo: z.string(),
    is_active: z.boolean(),
    rate_limit: z.number().int().describe('Requests per minute; 0 means no limit.'),
    has_failover_chain: z.boolean(),
    weights: weightsSchema,
    policies: policiesSchema,
    settings: settingsSchema,
    sandbox_of: uuid.nullable(),
    use_parent_custom_data: z.boolean(),
    benchmark_model_id: uuid.nullable(),
    benchmark_model: modelSchema.nullable(),
    prompt: promptSchema.nullable(),
    sandbox_status: z.enum(SANDBOX_STATUSES).describe("Extra field: on a main Space, how its sandbox relates to it; 'none' on a sandbox."),
    sandbox_synced_on: dateTime.nullable().describe('Extra field: when the sandbox was last copied from this Space.'),
    added_on: dateTime,
    modified_on: dateTime,
  })
  .meta({ id: 'Space' });
export type SpaceView = z.input<typeof spaceSchema>;

export const spaceDetailSchema = z
  .object({
    app: spaceSchema,
    active_models: z.number().int(),
    base_model_settings: z.array(modelActiveForAppSchema),
    custom_model_settings: z.array(modelActiveForAppSchema),
    failover_models: z.array(modelSchema),
    current_user_permissions: z.array(z.string()),
  })
  .meta({ id: 'SpaceDetail' });
export type SpaceDetailView = z.input<typeof spaceDetailSchema>;

export const spacePairSchema = z
  .object({
    main: spaceDetailSchema,
    sandbox: spaceDetailSchema.nullable(),
    sandbox_status: z.enum(SANDBOX_STATUSES),
  })
  .meta({ id: 'SpaceUpdateResult' });
export type SpacePairView = z.input<typeof spacePairSchema>;
