import { generateApiKey } from '../../auth/api-key';
import type { Role } from '../../domain/permissions';
import { ApiError } from '../../errors/api-error';
import { ApiKeyRepository } from '../../store/api-keys';
import type { Db } from '../../store/db';
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
}

export interface CreatedKey {
  key_id: string;
  /** Shown once; only its hash is stored. */
  api_key: string;
  key_end: string;
  role: Role;
  app_id: string | null;
}

/** A key as operators see it: never the secret, never the hash. */
export interface KeyView {
  id: string;
  name: string;
  role: Role;
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
  return db.$transaction(async (tx) => {
    const org = await requireOrganization(tx, input.orgId);
    if (input.appId !== undefined && !(await tenancyStore.findApp(tx, org.id, input.appId))) {
      throw new ApiError('not_found', `Space ${input.appId} not found in organization ${org.id}.`, 'app_id');
    }
    const idpId = input.idpId ?? ownerIdpId(org.name);
    const user = await tenancyStore.upsertUser(tx, { orgId: org.id, idpId, name: idpId, isServiceOwner: false });
    const role = input.role ?? DEFAULT_KEY_ROLE;
    const row = await tenancyStore.createKey(tx, {
      orgId: org.id,
      userId: user.id,
      appId: input.appId ?? null,
      role,
      name: input.name ?? `${role} key for ${idpId}`,
      hashedKey: key.hashedKey,
      keyEnd: key.keyEnd,
    });
    return { key_id: row.id, api_key: key.secret, key_end: row.key_end, role, app_id: row.app_id };
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

/** Revokes a live key; a key of another organization reads as unknown. */
export async function revokeOrgKey(db: Db, input: { orgId: string; keyId: string }, now = new Date()): Promise<RevokedKey> {
  await requireOrganization(db, input.orgId);
  if (await new ApiKeyRepository(db).revoke(input.orgId, input.keyId, now)) {
    return { key_id: input.keyId, revoked_on: now.toISOString() };
  }
  const existing = await tenancyStore.findKey(db, input.orgId, input.keyId);
  if (existing?.revoked_on) {
    throw new ApiError('conflict', `Key ${input.keyId} was already revoked on ${existing.revoked_on.toISOString()}.`, 'key_id');
  }
  throw new ApiError('not_found', `Key ${input.keyId} not found in organization ${input.orgId}.`, 'key_id');
}
