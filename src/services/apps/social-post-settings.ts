import { ApiError } from '../../errors/api-error';
import type { Settings } from '../../schemas/apps';
import { readSocialPostSettings, secretContext, SOCIAL_SECRET_NAMES } from '../../plugins/social-secrets';
import type { SocialPostSettings, SocialPostSettingsPatch } from '../../schemas/plugin-settings';
import type { SecretBox } from '../../secrets/secret-box';
import type { Tx } from '../../store/db';
import { spaceSecretStore } from '../../store/space-secrets';

/**
 * `settings.plugins["social-post"]`: the plain part merges into the Space's settings (what GETs
 * show); the secrets go sealed to `space_secrets` and leave only `has_access_token` /
 * `has_app_password` behind. Keeping the two apart means no response, log line, sandbox copy or
 * queue dashboard that carries `settings` can carry a credential.
 */
const DEFAULTS: SocialPostSettings = readSocialPostSettings(undefined);

/** Merges a patch key by key; an account sent replaces the stored one, null removes it. Pure: secrets are only flagged. */
export function mergeSocialPostSettings(stored: SocialPostSettings | undefined, patch: SocialPostSettingsPatch): SocialPostSettings {
  const merged: SocialPostSettings = { ...(stored ?? DEFAULTS) };
  if (patch.network !== undefined) merged.network = patch.network;
  if (patch.allow_auto_tools !== undefined) merged.allow_auto_tools = patch.allow_auto_tools;
  if (patch.mastodon !== undefined) {
    merged.mastodon = patch.mastodon && { instance_url: patch.mastodon.instance_url, visibility: patch.mastodon.visibility, has_access_token: true };
  }
  if (patch.bluesky !== undefined) {
    merged.bluesky = patch.bluesky && { service_url: patch.bluesky.service_url, identifier: patch.bluesky.identifier, has_app_password: true };
  }
  return merged;
}

interface SecretChange {
  name: string;
  /** null removes it. */
  value: string | null;
  param: string;
}

function secretChanges(patch: SocialPostSettingsPatch): SecretChange[] {
  const changes: SecretChange[] = [];
  const base = 'settings.plugins.social-post';
  if (patch.mastodon !== undefined) {
    changes.push({ name: SOCIAL_SECRET_NAMES.mastodon, value: patch.mastodon?.access_token ?? null, param: `${base}.mastodon.access_token` });
  }
  if (patch.bluesky !== undefined) {
    changes.push({ name: SOCIAL_SECRET_NAMES.bluesky, value: patch.bluesky?.app_password ?? null, param: `${base}.bluesky.app_password` });
  }
  return changes;
}

/**
 * Seals and stores (or removes) the secrets a patch carries, inside the caller's transaction, so a
 * refused update changes nothing. Without a key, setting a secret is refused (removing one is not).
 */
export async function writeSocialPostSecrets(
  tx: Tx,
  { appId, patch, box }: { appId: string; patch: SocialPostSettingsPatch | undefined; box: SecretBox | null },
): Promise<void> {
  if (!patch) return;
  for (const change of secretChanges(patch)) {
    if (change.value === null) {
      await spaceSecretStore.remove(tx, { appId, name: change.name });
      continue;
    }
    if (!box) {
      throw new ApiError(
        'invalid_request',
        `This service has no key for secrets (PLUGIN_SECRETS_KEY is not configured), so '${change.param}' cannot be stored. Ask the operator to set it.`,
        change.param,
      );
    }
    await spaceSecretStore.put(tx, { appId, name: change.name, sealed: box.seal(change.value, secretContext(appId, change.name)) });
  }
}

/**
 * A sandbox never posts to its main Space's accounts: sandbox sync leaves the sandbox's own
 * social-post settings (none unless set on the sandbox itself), and the sealed secrets, kept per
 * Space in `space_secrets`, are never copied.
 */
export function keepOwnSocialPost(copied: Settings, own: Settings | null): Settings {
  const { plugins, ...rest } = copied;
  const { 'social-post': _main, ...otherPlugins } = plugins ?? {};
  const ownSocial = own?.plugins?.['social-post'];
  const nextPlugins = ownSocial ? { ...otherPlugins, 'social-post': ownSocial } : otherPlugins;
  return Object.keys(nextPlugins).length > 0 ? { ...rest, plugins: nextPlugins } : rest;
}
