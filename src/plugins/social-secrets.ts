/**
 * What the Space settings service (services/apps/) shares with social-post: where each network's sealed
 * secret lives and how its settings are read. Services import plugin code through src/plugins' top-level
 * files only.
 */
export { readSocialPostSettings, secretContext, SOCIAL_SECRET_NAMES } from './social-post/settings';
