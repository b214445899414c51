import type { KeyRole, Permission } from '../domain/permissions';
import type { ModelAllowList } from '../domain/model-allow-list';

/** Who is calling, resolved from the bearer key. */
export interface AuthContext {
  keyId: string;
  orgId: string;
  userId: string;
  idpId: string;
  role: KeyRole;
  isServiceOwner: boolean;
  /** The key's own Space: where its completions are routed unless the request names another. */
  appId: string | null;
  permissions: readonly Permission[];
  /** When the key stops authenticating, in ms since the epoch; null: never. */
  expiresAt: number | null;
  /** The models the key may call; null for a key without a list (the usual case, checked first). */
  allowedModels: ModelAllowList | null;
}

export function can(auth: AuthContext, permission: Permission): boolean {
  return auth.permissions.includes(permission);
}

/** A key sees every Space of its organization and nothing of any other. */
export function canSeeApp(auth: AuthContext, app: { org_id: string }): boolean {
  return app.org_id === auth.orgId;
}
