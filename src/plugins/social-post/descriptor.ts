import type { PluginDescriptor } from '../types';
import { missingSocialAccount } from './settings';

/** Whether the Space's stored social-post settings (read when its snapshot was compiled) allow auto_tools to post. */
function allowsAutoTools(stored: unknown): boolean {
  return typeof stored === 'object' && stored !== null && (stored as { allow_auto_tools?: unknown }).allow_auto_tools === true;
}

/**
 * `social-post` acts for the Space: never cached (a post must happen, not be remembered), used by
 * auto_tools only with the Space's consent (`allow_auto_tools`), and a request naming it fails at once
 * when the Space has no account to post with.
 */
export const socialPostDescriptor: PluginDescriptor = {
  id: 'social-post',
  aliases: [],
  toolName: 'social_post',
  cacheable: false,
  autoToolsRefusal: (stored) => (allowsAutoTools(stored) ? null : "the Space's social-post settings do not set allow_auto_tools"),
  settingsProblem: missingSocialAccount,
};
