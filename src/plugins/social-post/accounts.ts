import { ApiError } from '../../errors/api-error';
import { UpstreamError } from '../../errors/upstream-error';
import type { SocialPostSettings } from '../../schemas/plugin-settings';
import { SecretOpenError, type SecretBox } from '../../secrets/secret-box';
import { appStore } from '../../store/apps';
import type { Db } from '../../store/db';
import { spaceSecretStore, type SealedSecrets } from '../../store/space-secrets';
import type { BlueskyAccount } from './bluesky';
import type { MastodonAccount } from './mastodon';
import { readSocialPostSettings, secretContext, SOCIAL_SECRET_NAMES, SOCIAL_SECRET_PREFIX } from './settings';

export type SocialAccount = MastodonAccount | BlueskyAccount;

/** A Space's accounts with their secrets opened; null where none is set (or its secret is missing). */
export interface SocialAccounts {
  mastodon: MastodonAccount | null;
  bluesky: BlueskyAccount | null;
}

function opener(sealed: SealedSecrets, { appId, box }: { appId: string; box: SecretBox }) {
  return (name: string): string | null => {
    const value = sealed.get(name);
    if (value === undefined) return null;
    try {
      return box.open(value, secretContext(appId, name));
    } catch (err) {
      if (!(err instanceof SecretOpenError)) throw err;
      // A key the service lost, or a tampered row: the account cannot be used until it is set again.
      throw new UpstreamError({
        kind: 'authentication',
        provider: 'social-post',
        message: `The Space's stored ${name} cannot be opened (${err.message}); set the account again.`,
      });
    }
  };
}

/** Joins the plain settings and the sealed secrets of one Space. */
export function openSocialAccounts(settings: SocialPostSettings, sealed: SealedSecrets, { appId, box }: { appId: string; box: SecretBox }): SocialAccounts {
  const open = opener(sealed, { appId, box });
  const token = settings.mastodon ? open(SOCIAL_SECRET_NAMES.mastodon) : null;
  const password = settings.bluesky ? open(SOCIAL_SECRET_NAMES.bluesky) : null;
  return {
    mastodon:
      settings.mastodon && token
        ? { network: 'mastodon', instanceUrl: settings.mastodon.instance_url, accessToken: token, visibility: settings.mastodon.visibility }
        : null,
    bluesky:
      settings.bluesky && password
        ? { network: 'bluesky', serviceUrl: settings.bluesky.service_url, identifier: settings.bluesky.identifier, appPassword: password }
        : null,
  };
}

/**
 * A Space's social accounts, decrypted: its `settings.plugins["social-post"]` and its own sealed
 * secrets. Always the Space's own id, never a parent's (a sandbox has its own accounts, if any).
 */
export async function loadSocialAccounts(db: Db, appId: string, box: SecretBox): Promise<SocialAccounts> {
  const settings = await appStore.settingsOf(db, appId);
  if (settings === undefined) return { mastodon: null, bluesky: null };
  const stored = (settings as { plugins?: Record<string, unknown> } | null)?.plugins?.['social-post'];
  const sealed = await spaceSecretStore.list(db, { appId, prefix: SOCIAL_SECRET_PREFIX });
  return openSocialAccounts(readSocialPostSettings(stored), sealed, { appId, box });
}

const SETTINGS_PARAM = 'settings.plugins.social-post';

/** The account posts go to: the chosen network's, or the only one set. */
export function chooseAccount(accounts: SocialAccounts, settings: SocialPostSettings): SocialAccount {
  if (settings.network) {
    const account = accounts[settings.network];
    if (!account)
      throw new ApiError(
        'invalid_request',
        `social-post: this Space has no ${settings.network} account; set one in '${SETTINGS_PARAM}.${settings.network}'.`,
        'plugins',
      );
    return account;
  }
  const configured = [accounts.mastodon, accounts.bluesky].filter((account): account is SocialAccount => account !== null);
  if (configured.length === 1 && configured[0]) return configured[0];
  if (configured.length === 0)
    throw new ApiError('invalid_request', `social-post: this Space has no social account; set one in '${SETTINGS_PARAM}'.`, 'plugins');
  throw new ApiError('invalid_request', `social-post: this Space has two accounts; choose one with '${SETTINGS_PARAM}.network'.`, 'plugins');
}
