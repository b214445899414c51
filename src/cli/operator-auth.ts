import type { AuthContext } from '../auth/auth-context';
import { permissionsFor } from '../domain/permissions';

/**
 * The operator acting inside one organization, as its owner would through the API: commands call the
 * same services as the HTTP routes, with the same rules, and only the key check is skipped (the
 * operator already holds the database).
 */
export function operatorAuth(orgId: string): AuthContext {
  return {
    keyId: 'cli',
    orgId,
    userId: 'cli',
    idpId: 'operator@cli',
    role: 'owner',
    isServiceOwner: false,
    appId: null,
    permissions: permissionsFor('owner', false),
    expiresAt: null,
    allowedModels: null,
  };
}
