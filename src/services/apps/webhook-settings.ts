import { generateWebhookSecret, hasWebhookSecret, putWebhookSecret, removeWebhookSecret } from '../../async-jobs/webhook-secret';
import { ApiError } from '../../errors/api-error';
import type { Settings } from '../../schemas/apps';
import type { StoredWebhookSettings, WebhookSettingsPatch } from '../../schemas/webhook-settings';
import type { SecretBox } from '../../secrets/secret-box';
import type { Tx } from '../../store/db';

const PARAM = 'settings.webhook';

/**
 * `settings.webhook`: the URL merges into the Space's settings (what GETs show); the secret goes sealed
 * to `space_secrets` and leaves only `has_secret` behind. After any patch other than null the Space has
 * a secret (given, generated, or the one it had). Pure: the secret itself is written by `writeWebhookSecret`.
 */
export function mergeWebhookSettings(stored: StoredWebhookSettings | undefined, patch: WebhookSettingsPatch | null): StoredWebhookSettings | undefined {
  if (patch === null) return undefined;
  return { url: patch.url !== undefined ? patch.url : (stored?.url ?? null), has_secret: true };
}

function requireBox(box: SecretBox | null, param: string): SecretBox {
  if (box) return box;
  throw new ApiError(
    'invalid_request',
    `This service has no key for secrets (PLUGIN_SECRETS_KEY is not configured), so '${param}' cannot be stored. Ask the operator to set it.`,
    param,
  );
}

/**
 * Seals and stores (or removes) the Space's webhook secret as the patch asks, inside the caller's
 * transaction. Answers a secret it generated, to be shown once; null otherwise.
 */
export async function writeWebhookSecret(
  tx: Tx,
  { appId, patch, box }: { appId: string; patch: WebhookSettingsPatch | null | undefined; box: SecretBox | null },
): Promise<string | null> {
  if (patch === undefined) return null;
  if (patch === null) {
    await removeWebhookSecret(tx, appId);
    return null;
  }
  if (patch.secret !== undefined) {
    await putWebhookSecret(tx, { appId, secret: patch.secret, box: requireBox(box, `${PARAM}.secret`) });
    return null;
  }
  if (!patch.rotate_secret && (await hasWebhookSecret(tx, appId))) return null;
  const secret = generateWebhookSecret();
  await putWebhookSecret(tx, { appId, secret, box: requireBox(box, PARAM) });
  return secret;
}

/**
 * A sandbox keeps its own webhook (none unless set on the sandbox itself): its test traffic never
 * reaches the main Space's receiver, and secrets, kept per Space in `space_secrets`, are never copied.
 */
export function keepOwnWebhook(copied: Settings, own: Settings | null): Settings {
  const { webhook: _main, ...rest } = copied;
  return own?.webhook ? { ...rest, webhook: own.webhook } : rest;
}
