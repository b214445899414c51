import { canSeeApp, type AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import { appStore, type AppRow } from '../../store/apps';
import type { Tx } from '../../store/db';

/** A Space id as a request gave it, and the parameter that carried it (named in a 404). */
export interface AppRef {
  id: string;
  param: 'id' | 'app_id';
}

/** A Space of the caller's organization; anything else is answered exactly like an unknown id. */
export async function findVisibleApp(tx: Tx, auth: AuthContext, ref: AppRef): Promise<AppRow> {
  const app = await appStore.findById(tx, ref.id);
  if (!app || !canSeeApp(auth, app)) throw ApiError.notFound('Space', ref.param);
  return app;
}

/**
 * Finds a Space and locks it for the rest of the transaction, the main Space first and then the
 * sandbox (the sandbox-sync job takes them in the same order, so the two never deadlock). The row is
 * read again under the lock, so JSON merges start from what is stored now.
 */
export async function lockVisibleApp(tx: Tx, auth: AuthContext, ref: AppRef): Promise<AppRow> {
  const found = await findVisibleApp(tx, auth, ref);
  if (found.sandbox_of) await appStore.lock(tx, found.sandbox_of);
  await appStore.lock(tx, found.id);
  return findVisibleApp(tx, auth, ref);
}

/** A change to a main Space or its sandbox means a sandbox that was a faithful copy no longer is. */
export async function markSandboxOutdated(tx: Tx, app: Pick<AppRow, 'id' | 'sandbox_of'>): Promise<void> {
  await appStore.setSandboxStatus(tx, app.sandbox_of ?? app.id, { status: 'outdated', onlyFrom: 'up_to_date' });
}
