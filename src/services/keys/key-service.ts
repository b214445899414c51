import type { AuthContext } from '../../auth/auth-context';
import { generateApiKey } from '../../auth/api-key';
import { keyPermissions, type KeyRole } from '../../domain/permissions';
import { ApiError } from '../../errors/api-error';
import type { Page } from '../../schemas/common';
import type { ApiKeyView, CreateKeyBody, CreatedApiKeyView, DeletedKeyView, KeyListQuery } from '../../schemas/keys';
import type { ApiKeyRepository, KeyListing } from '../../store/api-keys';
import { inTransaction, type Db } from '../../store/db';
import { toPage } from '../../store/pagination';
import { tenancyStore } from '../../store/tenancy';
import { checkNoEscalation } from './key-grant';
import { checkAllowedModelsKnown } from './allowed-models';
import { modelStore } from '../../store/models';
import { presentKey } from './present-key';

/** Least privilege unless the caller asks for more (as the CLI's `keys create`). */
const DEFAULT_ROLE: KeyRole = 'member';

export interface KeyServiceDeps {
  db: Db;
  keys: ApiKeyRepository;
  /** Drops keys that stopped authenticating from every process's cache (this one at once, the others through Redis). */
  forget(hashedKeys: readonly string[]): Promise<void>;
}

/** As every path id's 404 (src/http/unknown-path-id.ts): a malformed id and an unknown one answer alike. */
const notFound = () => ApiError.notFound('API key', 'key_id');

/** When a new key expires, in ms since the epoch: `expires_at` or `expires_in`, else the caller's own expiry (a key never outlives its maker). */
function expiryOf(auth: AuthContext, body: CreateKeyBody, now: number): number | null {
  if (body.expires_in !== undefined) return now + body.expires_in * 1000;
  if (body.expires_at === undefined) return auth.expiresAt;
  if (body.expires_at * 1000 <= now)
    throw new ApiError('invalid_value', "Invalid value for 'expires_at': it must lie in the future (unix seconds).", 'expires_at');
  return body.expires_at * 1000;
}

/**
 * `/v1/keys`: an organization's keys, managed by keys with `keys:manage`. A Space-scoped manager sees and
 * manages its Space's keys only; a key of another organization (or out of sight) is not found.
 */
export class KeyService {
  constructor(private readonly deps: KeyServiceDeps) {}

  async create(auth: AuthContext, body: CreateKeyBody, now = Date.now()): Promise<CreatedApiKeyView> {
    const role: KeyRole = body.permissions ? 'custom' : (body.role ?? DEFAULT_ROLE);
    const permissions = body.permissions ? [...new Set(body.permissions)] : [];
    const appId = body.app_id === undefined ? auth.appId : body.app_id;
    const expiresAt = expiryOf(auth, body, now);
    const allowedModels = body.allowed_models ? [...new Set(body.allowed_models)] : auth.allowedModels;
    checkNoEscalation(
      auth,
      { permissions: keyPermissions({ role, permissions }, auth.isServiceOwner), appId, expiresAt, allowedModels },
      { permissions: body.permissions ? 'permissions' : 'role' },
    );
    const secret = generateApiKey();
    const row = await inTransaction(this.deps.db, async (tx) => {
      if (appId !== null && !(await tenancyStore.findApp(tx, auth.orgId, appId))) throw ApiError.notFound('Space', 'app_id');
      if (body.allowed_models) checkAllowedModelsKnown(body.allowed_models, await modelStore.allowableNames(tx, auth.orgId));
      const created = await tenancyStore.createKey(tx, {
        orgId: auth.orgId,
        userId: auth.userId,
        appId,
        role,
        name: body.name,
        hashedKey: secret.hashedKey,
        keyEnd: secret.keyEnd,
        permissions,
        expiresOn: expiresAt === null ? null : new Date(expiresAt),
        allowedModels: allowedModels ?? [],
      });
      return this.deps.keys.find(auth.orgId, created.id, tx);
    });
    if (!row) throw notFound();
    return { ...presentKey(row), key: secret.secret };
  }

  async list(auth: AuthContext, query: KeyListQuery): Promise<Page<ApiKeyView>> {
    if (auth.appId !== null && query.app_id !== undefined && query.app_id !== auth.appId) {
      throw new ApiError('permission_denied', `This key manages the keys of its Space ${auth.appId} only.`, 'app_id');
    }
    const rows = await this.deps.keys.page(
      { orgId: auth.orgId, appId: auth.appId ?? query.app_id, includeRevoked: query.include_revoked ?? false },
      { limit: query.limit, after: query.after },
    );
    return toPage(rows, query, presentKey);
  }

  async get(auth: AuthContext, keyId: string): Promise<ApiKeyView> {
    return presentKey(await this.visible(auth, keyId));
  }

  /** Revokes the key: it answers 401 from the next request on, in every process. */
  async revoke(auth: AuthContext, keyId: string, now = new Date()): Promise<DeletedKeyView> {
    const row = await this.visible(auth, keyId);
    // One answer whether the key was revoked before or by a request racing this one.
    const already = () => new ApiError('conflict', `Key '${keyId}' was already revoked.`, 'key_id');
    if (row.revoked_on) throw already();
    if (!(await this.deps.keys.revoke(auth.orgId, keyId, now))) throw already();
    // Read after the revocation: a rotation can no longer change it.
    const hashed = await this.deps.keys.hashOf(keyId);
    if (hashed) await this.deps.forget([hashed]);
    return { id: keyId, object: 'api_key', deleted: true };
  }

  /**
   * A new secret for the key (same id, name, role, Space, expiry and models); the old secret stops at once.
   * Only a caller who could create such a key may rotate it, since the new secret is shown to them.
   */
  async rotate(auth: AuthContext, keyId: string): Promise<CreatedApiKeyView> {
    const row = await this.visible(auth, keyId);
    if (row.revoked_on) throw new ApiError('conflict', `Key '${keyId}' is revoked; a revoked key cannot be rotated.`, 'key_id');
    checkNoEscalation(
      auth,
      {
        permissions: keyPermissions(row, row.user.is_service_owner),
        appId: row.app_id,
        expiresAt: row.expires_on ? row.expires_on.getTime() : null,
        allowedModels: row.allowed_models.length > 0 ? row.allowed_models : null,
      },
      { permissions: 'key_id' },
    );
    const secret = generateApiKey();
    const oldHash = await this.deps.keys.hashOf(keyId);
    // Replaced only if still the secret read: a concurrent rotation or revocation makes this one a conflict.
    if (!oldHash || !(await this.deps.keys.replaceSecret({ orgId: auth.orgId, keyId, from: oldHash }, secret))) {
      throw new ApiError('conflict', `Key '${keyId}' was rotated or revoked meanwhile; read it again.`, 'key_id');
    }
    await this.deps.forget([oldHash]);
    const rotated = await this.deps.keys.find(auth.orgId, keyId);
    if (!rotated) throw notFound();
    return { ...presentKey(rotated), key: secret.secret };
  }

  /** The key, if it is of the caller's organization and, for a Space-scoped caller, of its Space. */
  private async visible(auth: AuthContext, keyId: string): Promise<KeyListing> {
    const row = await this.deps.keys.find(auth.orgId, keyId);
    if (!row || (auth.appId !== null && row.app_id !== auth.appId)) throw notFound();
    return row;
  }
}
