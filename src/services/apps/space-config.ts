import { z } from 'zod';
import { COMPLETION_REQUEST_FIELDS } from '../../schemas/forwarded-fields';
import { ApiError } from '../../errors/api-error';
import type { Prisma } from '../../generated/prisma/client';
import type { Policies, PoliciesPatch, Settings, SettingsPatch, Weights, WeightsPatch } from '../../schemas/apps';
import { FEATURE_FLAGS, type FeatureFlags } from '../../schemas/feature-flags';
import { readSocialPostSettings } from '../../plugins/social-post/settings';
import type { SocialPostSettings } from '../../schemas/plugin-settings';
import { readWebhookSettings } from '../../schemas/webhook-settings';
import { mergeSocialPostSettings } from './social-post-settings';
import { mergeWebhookSettings } from './webhook-settings';

/** The column defaults of `apps` (prisma/schema.prisma); a key missing from a stored object reads as these. */
export const DEFAULT_WEIGHTS: Weights = { cost: 0.33, latency: 0.33, quality: 0.34 };
export const DEFAULT_POLICIES: Policies = {
  privacy_level: 1,
  max_cost: null,
  max_switch_model_retries: 2,
  max_same_model_retries: 2,
  optimize_internal_requests: 0,
  prompt_id: null,
};
export const DEFAULT_SETTINGS: Settings = { assistant_id: null, assistant_version_id: null, instructions: null, max_tokens: null, temperature: null };

// Each key falls back to its default when missing or malformed, so a response always has the full shape.
const W = DEFAULT_WEIGHTS;
const storedWeights = z
  .object({ cost: z.number().catch(W.cost), latency: z.number().catch(W.latency), quality: z.number().catch(W.quality) })
  .catch(W);

const P = DEFAULT_POLICIES;
/** A Space's own timeout (extension field): a positive whole number of ms, else absent (the service default applies). */
const storedTimeout = z.number().int().positive().optional().catch(undefined);

const TIMEOUT_POLICIES = ['first_byte_timeout_ms', 'upstream_timeout_ms'] as const;

/** The timeout keys appear only when the Space set them, so a response has no `undefined` holes. */
function withoutAbsentTimeouts(policies: Policies): Policies {
  const result = { ...policies };
  for (const key of TIMEOUT_POLICIES) if (result[key] === undefined) delete result[key];
  return result;
}

/** Policies merge key by key; a timeout patched to null goes back to the service default. */
export function mergePolicies(stored: Policies, patch: PoliciesPatch | undefined): Policies {
  const { first_byte_timeout_ms: firstByte, upstream_timeout_ms: upstream, ...rest } = patch ?? {};
  const merged: Policies = { ...stored, ...rest };
  if (firstByte !== undefined) merged.first_byte_timeout_ms = firstByte ?? undefined;
  if (upstream !== undefined) merged.upstream_timeout_ms = upstream ?? undefined;
  return withoutAbsentTimeouts(merged);
}
const storedPolicies = z
  .object({
    privacy_level: z.number().int().catch(P.privacy_level),
    max_cost: z.number().nullable().catch(P.max_cost),
    max_switch_model_retries: z.number().int().catch(P.max_switch_model_retries),
    max_same_model_retries: z.number().int().catch(P.max_same_model_retries),
    optimize_internal_requests: z.number().int().catch(P.optimize_internal_requests),
    prompt_id: z.uuid().nullable().catch(P.prompt_id),
    first_byte_timeout_ms: storedTimeout,
    upstream_timeout_ms: storedTimeout,
  })
  .transform(withoutAbsentTimeouts)
  .catch(P);

/** Known flags stored as booleans; anything else reads as unset. `feature_flags` stays absent unless it was stored. */
const storedFeatureFlags = z
  .record(z.string(), z.unknown())
  .transform((stored): FeatureFlags => Object.fromEntries(FEATURE_FLAGS.flatMap((flag) => (typeof stored[flag] === 'boolean' ? [[flag, stored[flag]]] : []))))
  .optional()
  .catch(undefined);

/** Plugin settings as stored: objects by plugin id (social-post's read with its secrets only flagged); anything else reads as unset. */
type PluginSettings = NonNullable<Settings['plugins']>;
const storedPluginSettings = z
  .record(z.string(), z.record(z.string(), z.unknown()))
  .transform((stored): PluginSettings => {
    const { 'social-post': social, ...others } = stored;
    return social === undefined ? others : { ...others, 'social-post': readSocialPostSettings(social) };
  })
  .optional()
  .catch(undefined);
const storedAutoTools = z.record(z.string(), z.unknown()).optional().catch(undefined);

const S = DEFAULT_SETTINGS;
const storedSettings = z
  .object({
    assistant_id: z.uuid().nullable().catch(S.assistant_id),
    assistant_version_id: z.uuid().nullable().catch(S.assistant_version_id),
    instructions: z.string().nullable().catch(S.instructions),
    max_tokens: z.number().int().nullable().catch(S.max_tokens),
    temperature: z.number().nullable().catch(S.temperature),
    feature_flags: storedFeatureFlags,
    plugins: storedPluginSettings,
    auto_tools: storedAutoTools,
    webhook: z.unknown().optional().transform(readWebhookSettings),
    forward_fields: z.array(z.string()).optional().catch(undefined),
  })
  // Extension keys appear only when the Space set them, so a response has no `undefined` holes.
  .transform(({ feature_flags, plugins, auto_tools, webhook, forward_fields, ...rest }): Settings => ({
    ...rest,
    ...(forward_fields === undefined ? {} : { forward_fields }),
    ...(webhook === undefined ? {} : { webhook }),
    ...(feature_flags === undefined ? {} : { feature_flags }),
    ...(plugins === undefined || Object.keys(plugins).length === 0 ? {} : { plugins }),
    ...(auto_tools === undefined ? {} : { auto_tools: auto_tools as Settings['auto_tools'] }),
  }))
  .catch(S);

export const readWeights = (json: Prisma.JsonValue): Weights => storedWeights.parse(json);
export const readPolicies = (json: Prisma.JsonValue): Policies => storedPolicies.parse(json);
export const readSettings = (json: Prisma.JsonValue): Settings => storedSettings.parse(json);

export interface SpaceConfig {
  weights: Weights;
  policies: Policies;
  settings: Settings;
}

export interface SpaceConfigPatch {
  weights?: WeightsPatch;
  policies?: PoliciesPatch;
  settings?: SettingsPatch;
}

/** Plugin settings merge plugin by plugin, then key by key; social-post's secrets are sealed apart and only flagged here. */
function mergePluginSettings(stored: Settings['plugins'], patch: NonNullable<SettingsPatch['plugins']>): PluginSettings {
  const { 'social-post': social, ...others } = patch;
  const merged: PluginSettings = { ...stored };
  for (const [id, values] of Object.entries(others)) if (values) merged[id] = { ...stored?.[id], ...values };
  if (social) merged['social-post'] = mergeSocialPostSettings(stored?.['social-post'] as SocialPostSettings | undefined, social);
  return merged;
}

/** A Space's forwarded fields, each once; a field Switchyard reads itself cannot be one (it is never passed on as sent). */
function checkedForwardFields(fields: string[]): string[] {
  const own = fields.find((field) => COMPLETION_REQUEST_FIELDS.has(field));
  if (own !== undefined) {
    throw new ApiError('invalid_value', `Invalid value for 'settings.forward_fields': '${own}' is a field Switchyard reads itself, not one it forwards.`, 'settings.forward_fields');
  }
  return [...new Set(fields)];
}

/** Settings merge key by key, `feature_flags` flag by flag, plugin settings plugin by plugin. */
function mergeSettings(stored: Settings, patch: SettingsPatch | undefined): Settings {
  const { plugins, auto_tools: autoTools, webhook, forward_fields: forwardFields, ...rest } = patch ?? {};
  const merged: Settings = { ...stored, ...rest };
  if (forwardFields === null) delete merged.forward_fields;
  else if (forwardFields !== undefined) merged.forward_fields = checkedForwardFields(forwardFields);
  if (webhook !== undefined) {
    const next = mergeWebhookSettings(stored.webhook, webhook);
    if (next) merged.webhook = next;
    else delete merged.webhook;
  }
  if (patch?.feature_flags) merged.feature_flags = { ...stored.feature_flags, ...patch.feature_flags };
  if (plugins) merged.plugins = mergePluginSettings(stored.plugins, plugins);
  if (autoTools) merged.auto_tools = { ...stored.auto_tools, ...autoTools };
  return merged;
}

/** Merges a patch key by key into the stored configuration and checks what only the whole can tell. */
export function mergeConfig(stored: SpaceConfig, patch: SpaceConfigPatch): SpaceConfig {
  const merged: SpaceConfig = {
    weights: { ...stored.weights, ...patch.weights },
    policies: mergePolicies(stored.policies, patch.policies),
    settings: mergeSettings(stored.settings, patch.settings),
  };
  const { cost, latency, quality } = merged.weights;
  // All-zero weights leave the router nothing to rank by.
  if (cost === 0 && latency === 0 && quality === 0) {
    throw new ApiError('invalid_value', "Invalid value for 'weights': cost, latency and quality must not all be zero.", 'weights');
  }
  return merged;
}
