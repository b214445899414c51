import { socialPostSettings, type SocialPostSettings } from '../../schemas/plugin-settings';

/** Where each network's secret lives in `space_secrets` (sealed for its Space and name). */
export const SOCIAL_SECRET_NAMES = {
  mastodon: 'social-post.mastodon.access_token',
  bluesky: 'social-post.bluesky.app_password',
} as const;
export const SOCIAL_SECRET_PREFIX = 'social-post.';

/** The authenticated context of a sealed secret: it opens only for this Space and this field. */
export const secretContext = (appId: string, name: string): string => `${appId}\0${name}`;

const DEFAULTS: SocialPostSettings = socialPostSettings.parse({});

/** Stored social-post settings, or the defaults when missing or malformed. */
export function readSocialPostSettings(stored: unknown): SocialPostSettings {
  const parsed = socialPostSettings.safeParse(stored ?? {});
  return parsed.success ? parsed.data : DEFAULTS;
}
