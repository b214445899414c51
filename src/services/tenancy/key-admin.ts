import { generateApiKey } from '../../auth/api-key';
import type { KeyRole, Role } from '../../domain/permissions';
import { ApiError } from '../../errors/api-error';
import { ApiKeyRepository } from '../../store/api-keys';
import { inTransaction, type Db } from '../../store/db';
import { tenancyStore } from '../../store/tenancy';
import { ownerIdpId, requireOrganization } from './organization';

/** Least privilege unless the operator asks for more. */
const DEFAULT_KEY_ROLE: Role = 'member';

export interface NewOrgKey {
  orgId: string;
  /** The key's user, created when missing; defaults to the organization's owner user. */
  idpId?: string;
  role?: Role;
  /** The Space the key acts on; omitted for an organization-wide key. */
  appId?: string;
  name?: string;
  /**
   * Makes the key's user a service owner (`queues:admin`, prompt review): the user defaults to
   * `service-owner@<org name>` rather than the owner, so the owner's other keys gain nothing.
   */
  serviceOwner?: boolean;
  /** Seconds until the key stops authenticating; omitted: never. */
  expiresInSeconds?: number;
  /** Models the key may call; omitted: every model of its Space. */
  allowedModels?: readonly string[];
}

/** Identity-provider id of the service-owner user `keys create --service-owner` makes when none is named. */
export function serviceOwnerIdpId(orgName: string): string {
  return `service-owner@${orgName}`;
}

export interface CreatedKey {
  key_id: string;
  /** Shown once; only its hash is stored. */
  api_key: string;
  key_end: string;
  role: Role;
  app_id: string | null;
  service_owner: boolean;
  expires_on: string | null;
}

/** A key as operators see it: never the secret, never the hash. */
export interface KeyView {
  id: string;
  name: string;
  role: KeyRole;
  key_end: string;
  app_id: string | null;
  idp_id: string | null;
  added_on: string;
  last_used_on: string | null;
  revoked_on: string | null;
}

export interface RevokedKey {
  key_id: string;
  revoked_on: string;
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** Creates a key for a user of the organization (creating the user when needed), in one transaction. */
export async function createOrgKey(db: Db, input: NewOrgKey): Promise<CreatedKey> {
  const key = generateApiKey();
  return inTransaction(db, async (tx) => {
    const org = await requireOrganization(tx, input.orgId);
    if (input.appId !== undefined && !(await tenancyStore.findApp(tx, org.id, input.appId))) {
      throw new ApiError('not_found', `Space ${input.appId} not found in organization ${org.id}.`, 'app_id');
    }
    const serviceOwner = input.serviceOwner ?? false;
    const idpId = input.idpId ?? (serviceOwner ? serviceOwnerIdpId(org.name) : ownerIdpId(org.name));
    const user = await tenancyStore.upsertUser(tx, { orgId: org.id, idpId, name: idpId, isServiceOwner: serviceOwner });
    const role = input.role ?? DEFAULT_KEY_ROLE;
    const expiresOn = input.expiresInSeconds === undefined ? null : new Date(Date.now() + input.expiresInSeconds * 1000);
    const row = await tenancyStore.createKey(tx, {
      orgId: org.id,
      userId: user.id,
      appId: input.appId ?? null,
      role,
      name: input.name ?? `${role} key for ${idpId}`,
      hashedKey: key.hashedKey,
      keyEnd: key.keyEnd,
      expiresOn,
      allowedModels: input.allowedModels,
    });
    return {
      key_id: row.id,
      api_key: key.secret,
      key_end: row.key_end,
      role,
      app_id: row.app_id,
      service_owner: user.is_service_owner,
      expires_on: iso(expiresOn),
    };
  });
}

/** Every key of the organization, revoked ones included, oldest first. */
export async function listOrgKeys(db: Db, orgId: string): Promise<KeyView[]> {
  await requireOrganization(db, orgId);
  const keys = await new ApiKeyRepository(db).listForOrg(orgId);
  const users = await tenancyStore.findUsers(db, [...new Set(keys.map((k) => k.user_id))]);
  const idpIds = new Map(users.map((u) => [u.id, u.idp_id]));
  return keys.map((k) => ({
    id: k.id,
    name: k.name,
    role: k.role,
    key_end: k.key_end,
    app_id: k.app_id,
    idp_id: idpIds.get(k.user_id) ?? null,
    added_on: k.added_on.toISOString(),
    last_used_on: iso(k.last_used_on),
    revoked_on: iso(k.revoked_on),
  }));
}

export interface KeyToRevoke {
  orgId: string;
  keyId: string;
  /** Told the revoked key's hash, to drop it from the running processes' caches (KeyRevocations). */
  forget?(hashedKeys: readonly string[]): Promise<void>;
}

/** Revokes a live key; a key of another organization reads as unknown. */
export async function revokeOrgKey(db: Db, input: KeyToRevoke, now = new Date()): Promise<RevokedKey> {
  await requireOrganization(db, input.orgId);
  const keys = new ApiKeyRepository(db);
  if (await keys.revoke(input.orgId, input.keyId, now)) {
    const hashed = await keys.hashOf(input.keyId);
    if (hashed) await input.forget?.([hashed]);
    return { key_id: input.keyId, revoked_on: now.toISOString() };
  }
  const existing = await tenancyStore.findKey(db, input.orgId, input.keyId);
  if (existing?.revoked_on) {
    throw new ApiError('conflict', `Key ${input.keyId} was already revoked on ${existing.revoked_on.toISOString()}.`, 'key_id');
  }
  throw new ApiError('not_found', `Key ${input.keyId} not found in organization ${input.orgId}.`, 'key_id');
}
