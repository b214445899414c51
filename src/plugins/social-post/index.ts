import { z } from 'zod';
import type { SocialPostConfig } from '../../config/plugins/social-post';
import { ApiError } from '../../errors/api-error';
import { socialPostSettings, type SocialPostSettings } from '../../schemas/plugin-settings';
import type { SecretBox } from '../../secrets/secret-box';
import type { Db } from '../../store/db';
import { spaceSecretStore } from '../../store/space-secrets';
import type { Plugin, PluginContext, PluginInput, PluginOutput } from '../types';
import { chooseAccount, openSocialAccounts } from './accounts';
import { BlueskyClient } from './bluesky';
import { postOnce } from './post-once';
import { SOCIAL_SECRET_PREFIX } from './settings';
import { MastodonLimits } from './mastodon-limits';
import { BLUESKY_LIMIT, fitToLimit } from './text';
import { settingsReader } from '../settings-reader';

const readSettings = settingsReader(socialPostSettings);

export { loadSocialAccounts, type SocialAccounts } from './accounts';

export interface SocialPostDeps {
  /** Holds `space_secrets` (the sealed credentials) and `social_posts` (one post per request id). */
  db: Db;
  /** Opens the Space's sealed credentials; null when the service has no `PLUGIN_SECRETS_KEY` (the plugin is then unavailable). */
  secrets: SecretBox | null;
  /** Clock for the Bluesky record's `createdAt` and session reuse (tests). */
  clock?: () => number;
}

/** Calls one run may make at most: Bluesky's session, check and post. */
const CALLS_PER_RUN = 3;

/**
 * `social-post` (phase `after_model`): posts the model's answer to the Space's Mastodon or Bluesky
 * account, once per request id. It posts whenever it is run: the runner runs it only when the request
 * names it, or under `auto_tools` when the Space's `allow_auto_tools` is true.
 */
export function createSocialPostPlugin(config: SocialPostConfig, deps: SocialPostDeps): Plugin {
  const box = deps.secrets;
  const bluesky = new BlueskyClient(deps.clock);
  const mastodonLimits = new MastodonLimits();
  const onceDeps = { db: deps.db, bluesky, inFlightMs: config.timeoutMs * CALLS_PER_RUN, clock: deps.clock };

  async function run(input: PluginInput, ctx: PluginContext): Promise<PluginOutput> {
    if (!box) throw new ApiError('invalid_request', 'social-post is not available: the service has no PLUGIN_SECRETS_KEY.', 'plugins');
    const settings = readSettings(ctx.settings) satisfies SocialPostSettings;
    // The Space's own id, never dataSpaceId: a sandbox reading its parent's files still posts only with its own accounts.
    const appId = ctx.space.id;
    const sealed = await spaceSecretStore.list(deps.db, { appId, prefix: SOCIAL_SECRET_PREFIX });
    const account = chooseAccount(openSocialAccounts(settings, sealed, { appId, box }), settings);
    const answer = input.answer?.trim() ?? '';
    if (!answer) throw new ApiError('invalid_request', 'social-post has nothing to post: the model gave an empty answer.', 'plugins');
    const timeoutMs = Math.max(1, Math.min(config.timeoutMs, ctx.deadline - Date.now()));
    const call = { http: ctx.untrusted, signal: ctx.signal, timeoutMs };
    const text = fitToLimit(answer, account.network === 'mastodon' ? await mastodonLimits.of(account, call) : BLUESKY_LIMIT);
    const post = await postOnce(onceDeps, { requestId: ctx.requestId, appId, account, text, call, logger: ctx.logger });
    // No URL or id: the post is the answer, which no application log keeps (privacy level 3 keeps nothing).
    ctx.logger.info({ plugin: 'social-post', network: account.network, reused: post.reused }, 'social-post: posted');
    return {
      context: null,
      searchResults: [],
      artifacts: [{ type: 'social_post', plugin: 'social-post', network: account.network, url: post.url, id: post.id }],
      costUsd: 0,
      ...(post.reused ? { warning: 'social-post: this request had already posted; the earlier post is returned.' } : {}),
    };
  }

  return {
    id: 'social-post',
    phase: 'after_model',
    description: "Posts the final answer to the Space's social account (Mastodon or Bluesky) and returns the post's URL.",
    toolParameters: z.object({}),
    settingsSchema: socialPostSettings,
    backendKey: 'social-post',
    availability: () =>
      box ? { available: true } : { available: false, reason: 'PLUGIN_SECRETS_KEY is not configured, so no Space can store a social account.' },
    run,
  };
}
