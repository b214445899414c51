import { readSocialPostSettings } from '../../schemas/stored-space-config';

/** Where each network's secret lives in `space_secrets` (sealed for its Space and name). */
export const SOCIAL_SECRET_NAMES = {
  mastodon: 'social-post.mastodon.access_token',
  bluesky: 'social-post.bluesky.app_password',
} as const;
export const SOCIAL_SECRET_PREFIX = 'social-post.';

/** The authenticated context of a sealed secret: it opens only for this Space and this field. */
export const secretContext = (appId: string, name: string): string => `${appId}\0${name}`;

export { readSocialPostSettings };

/**
 * Why the Space's settings leave social-post nothing to post with (no account, or not the chosen
 * network's), or null when an account is there. Read from the stored `has_*` flags, so a request
 * can be refused before any model call.
 */
export function missingSocialAccount(stored: unknown): string | null {
  const settings = readSocialPostSettings(stored);
  const has = { mastodon: settings.mastodon?.has_access_token === true, bluesky: settings.bluesky?.has_app_password === true };
  if (settings.network)
    return has[settings.network] ? null : `this Space has no ${settings.network} account; set one in 'settings.plugins.social-post.${settings.network}'`;
  return has.mastodon || has.bluesky ? null : "this Space has no social account; set one in 'settings.plugins.social-post'";
}
