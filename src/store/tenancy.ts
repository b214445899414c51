import type { KeyRole } from '../domain/permissions';
import type { Tx } from './db';

export interface NewKey {
  orgId: string;
  userId: string;
  appId: string | null;
  role: KeyRole;
  name: string;
  hashedKey: string;
  keyEnd: string;
  /** The list a `custom` key may do; absent for the other roles. */
  permissions?: readonly string[];
  expiresOn?: Date | null;
  allowedModels?: readonly string[];
}

/** Rows that make up an organization's people and keys. Each takes a transaction client. */
export const tenancyStore = {
  createOrganization(tx: Tx, name: string) {
    return tx.organization.create({ data: { name } });
  },

  findOrganizationByName(tx: Tx, name: string) {
    return tx.organization.findFirst({ where: { name }, orderBy: { added_on: 'asc' } });
  },

  /**
   * Holds a lock on an organization name until the transaction ends, so two bootstraps of one name
   * run one after the other and the second finds what the first made instead of making it twice.
   */
  async lockOrganizationName(tx: Tx, name: string): Promise<void> {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`bootstrap:${name}`}, 0))`;
  },

  /** The organization's oldest main Space (not a sandbox copy) of that name. */
  findSpaceByName(tx: Tx, orgId: string, name: string) {
    return tx.app.findFirst({ where: { org_id: orgId, name, sandbox_of: null }, orderBy: [{ added_on: 'asc' }, { id: 'asc' }] });
  },

  /** Public catalog models by their `model` name (what clients send). */
  findCatalogModels(tx: Tx, names: readonly string[]) {
    return tx.model.findMany({
      where: { model: { in: [...names] }, is_public: true, app_id: null, org_id: null },
      select: { id: true, model: true, globally_disabled: true },
    });
  },

  upsertUser(tx: Tx, user: { orgId: string; idpId: string; name: string; isServiceOwner: boolean }) {
    return tx.user.upsert({
      where: { org_id_idp_id: { org_id: user.orgId, idp_id: user.idpId } },
      create: { org_id: user.orgId, idp_id: user.idpId, name: user.name, is_service_owner: user.isServiceOwner },
      update: user.isServiceOwner ? { is_service_owner: true } : {},
    });
  },

  findUser(tx: Tx, orgId: string, idpId: string) {
    return tx.user.findUnique({ where: { org_id_idp_id: { org_id: orgId, idp_id: idpId } } });
  },

  findOrganization(tx: Tx, orgId: string) {
    return tx.organization.findUnique({ where: { id: orgId } });
  },

  /** The Space only when it belongs to the organization, so a foreign id reads as unknown. */
  findApp(tx: Tx, orgId: string, appId: string) {
    return tx.app.findFirst({ where: { id: appId, org_id: orgId } });
  },

  listApps(tx: Tx, orgId: string) {
    return tx.app.findMany({
      where: { org_id: orgId },
      orderBy: [{ added_on: 'asc' }, { id: 'asc' }],
      select: { id: true, name: true, is_active: true, sandbox_of: true, added_on: true },
    });
  },

  findUsers(tx: Tx, userIds: readonly string[]) {
    return tx.user.findMany({ where: { id: { in: [...userIds] } }, select: { id: true, idp_id: true } });
  },

  /** The key only when it belongs to the organization, revoked or not. */
  findKey(tx: Tx, orgId: string, keyId: string) {
    return tx.apiKey.findFirst({ where: { id: keyId, org_id: orgId }, select: { id: true, revoked_on: true } });
  },

  createKey(tx: Tx, key: NewKey) {
    return tx.apiKey.create({
      data: {
        org_id: key.orgId,
        user_id: key.userId,
        app_id: key.appId,
        role: key.role,
        name: key.name,
        hashed_key: key.hashedKey,
        key_end: key.keyEnd,
        permissions: [...(key.permissions ?? [])],
        expires_on: key.expiresOn ?? null,
        allowed_models: [...(key.allowedModels ?? [])],
      },
    });
  },
};
