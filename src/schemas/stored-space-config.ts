import { z } from 'zod';
import type { Policies, PoliciesPatch, Settings, Weights } from './apps';
import { FEATURE_FLAGS, type FeatureFlags } from './feature-flags';
import { socialPostSettings, type SocialPostSettings } from './plugin-settings';
import { readWebhookSettings } from './webhook-settings';

/**
 * A Space's configuration as stored (the `weights`, `policies` and `settings` JSON columns of `apps`),
 * read into the contract's shapes: the one reader for the admin API and for completions.
 */

const SOCIAL_POST_DEFAULTS: SocialPostSettings = socialPostSettings.parse({});

/** Stored social-post settings, or the defaults when missing or malformed. */
export function readSocialPostSettings(stored: unknown): SocialPostSettings {
  const parsed = socialPostSettings.safeParse(stored ?? {});
  return parsed.success ? parsed.data : SOCIAL_POST_DEFAULTS;
}

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
const storedWeights = z.object({ cost: z.number().catch(W.cost), latency: z.number().catch(W.latency), quality: z.number().catch(W.quality) }).catch(W);

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

export const readWeights = (json: unknown): Weights => storedWeights.parse(json);
export const readPolicies = (json: unknown): Policies => storedPolicies.parse(json);
export const readSettings = (json: unknown): Settings => storedSettings.parse(json);
