import type { Permission, Role } from '../domain/permissions';

/** Who is calling, resolved from the bearer key. */
export interface AuthContext {
  keyId: string;
  orgId: string;
  userId: string;
  idpId: string;
  role: Role;
  isServiceOwner: boolean;
  /** The key's own Space: where its completions are routed unless the request names another. */
  appId: string | null;
  permissions: readonly Permission[];
}

export function can(auth: AuthContext, permission: Permission): boolean {
  return auth.permissions.includes(permission);
}

/** A key sees every Space of its organization and nothing of any other. */
export function canSeeApp(auth: AuthContext, app: { org_id: string }): boolean {
  return app.org_id === auth.orgId;
}
