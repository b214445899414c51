import { COMPLETION_REQUEST_FIELDS } from '../../schemas/forwarded-fields';
import { ApiError } from '../../errors/api-error';
import type { Policies, PoliciesPatch, Settings, SettingsPatch, Weights, WeightsPatch } from '../../schemas/apps';
import type { SocialPostSettings } from '../../schemas/plugin-settings';
import { mergePolicies } from '../../schemas/stored-space-config';
import { mergeSocialPostSettings } from './social-post-settings';
import { mergeWebhookSettings } from './webhook-settings';

/** Plugin settings as stored: objects by plugin id. */
type PluginSettings = NonNullable<Settings['plugins']>;

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
    throw new ApiError(
      'invalid_value',
      `Invalid value for 'settings.forward_fields': '${own}' is a field Switchyard reads itself, not one it forwards.`,
      'settings.forward_fields',
    );
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
