import type { Role } from '../auth/permissions';
import type { Tx } from './db';

export interface NewKey {
  orgId: string;
  userId: string;
  appId: string | null;
  role: Role;
  name: string;
  hashedKey: string;
  keyEnd: string;
}

/** Rows that make up an organization's people and keys. Each takes a transaction client. */
export const tenancyStore = {
  createOrganization(tx: Tx, name: string) {
    return tx.organization.create({ data: { name } });
  },

  findOrganizationByName(tx: Tx, name: string) {
    return tx.organization.findFirst({ where: { name }, orderBy: { added_on: 'asc' } });
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
      },
    });
  },
};
