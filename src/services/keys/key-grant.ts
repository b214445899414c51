import type { AuthContext } from '../../auth/auth-context';
import type { Permission } from '../../domain/permissions';
import { ApiError } from '../../errors/api-error';

/** What a key may do, as far as handing it out is concerned. */
export interface KeyGrant {
  permissions: readonly Permission[];
  appId: string | null;
  /** ms since the epoch; null: never expires. */
  expiresAt: number | null;
  /** null: every model. */
  allowedModels: readonly string[] | null;
}

/**
 * Refuses to hand out (create, or rotate to a new secret) a key that could do more than the caller's own:
 * a permission the caller lacks, another Space than a Space-scoped caller's own (an organization-wide
 * key included), a model outside the caller's allow-list, or a life past the caller's expiry.
 */
export function checkNoEscalation(auth: AuthContext, grant: KeyGrant, params: { permissions: string }): void {
  const missing = grant.permissions.filter((p) => !auth.permissions.includes(p));
  if (missing.length > 0) {
    throw new ApiError('permission_denied', `A key cannot be given permissions the caller's key lacks: ${missing.join(', ')}.`, params.permissions);
  }
  if (auth.appId !== null && grant.appId !== auth.appId) {
    const what = grant.appId === null ? 'an organization-wide key' : `a key of another Space (${grant.appId})`;
    throw new ApiError('permission_denied', `This key manages the keys of its Space ${auth.appId} only; it cannot hand out ${what}.`, 'app_id');
  }
  if (auth.allowedModels) {
    const outside = grant.allowedModels === null ? ['every model'] : grant.allowedModels.filter((m) => !auth.allowedModels?.includes(m));
    if (outside.length > 0) {
      throw new ApiError('permission_denied', `A key cannot be allowed models the caller's key is not: ${outside.join(', ')}.`, 'allowed_models');
    }
  }
  if (auth.expiresAt !== null && (grant.expiresAt === null || grant.expiresAt > auth.expiresAt)) {
    throw new ApiError(
      'permission_denied',
      `A key cannot outlive the caller's key, which expires at ${Math.floor(auth.expiresAt / 1000)} (unix seconds).`,
      'expires_at',
    );
  }
}
