import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../secrets/secret-box';
import type { Db, Tx } from '../store/db';
import { spaceSecretStore } from '../store/space-secrets';

/** Where a Space's webhook signing secret lives in `space_secrets` (sealed for its Space and this name). */
export const WEBHOOK_SECRET_NAME = 'webhook.secret';

/** The authenticated context of the sealed secret: it opens only for this Space and this field. */
const context = (appId: string): string => `${appId}\0${WEBHOOK_SECRET_NAME}`;

/** A new secret in Standard Webhooks' format: `whsec_` and 24 random bytes in base64 (Svix's size). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export async function hasWebhookSecret(db: Db | Tx, appId: string): Promise<boolean> {
  return (await spaceSecretStore.list(db, { appId, prefix: WEBHOOK_SECRET_NAME })).has(WEBHOOK_SECRET_NAME);
}

export async function putWebhookSecret(tx: Tx, { appId, secret, box }: { appId: string; secret: string; box: SecretBox }): Promise<void> {
  await spaceSecretStore.put(tx, { appId, name: WEBHOOK_SECRET_NAME, sealed: box.seal(secret, context(appId)) });
}

export async function removeWebhookSecret(tx: Tx, appId: string): Promise<void> {
  await spaceSecretStore.remove(tx, { appId, name: WEBHOOK_SECRET_NAME });
}

/**
 * The Space's signing secret, created when it has none yet (a per-request webhook in a Space that never
 * set one): every delivery is signed, and the Space's admin can replace it (`rotate_secret`) to learn it.
 * Two workers creating one at once keep the first: the loser's insert does nothing and it reads the winner's.
 */
export async function webhookSecretOf(db: Db, { appId, box }: { appId: string; box: SecretBox }): Promise<string> {
  const sealed = (await spaceSecretStore.list(db, { appId, prefix: WEBHOOK_SECRET_NAME })).get(WEBHOOK_SECRET_NAME);
  if (sealed !== undefined) return box.open(sealed, context(appId));
  await spaceSecretStore.putIfAbsent(db, { appId, name: WEBHOOK_SECRET_NAME, sealed: box.seal(generateWebhookSecret(), context(appId)) });
  const created = (await spaceSecretStore.list(db, { appId, prefix: WEBHOOK_SECRET_NAME })).get(WEBHOOK_SECRET_NAME);
  if (created === undefined) throw new Error(`webhook secret of Space ${appId} not stored`);
  return box.open(created, context(appId));
}
