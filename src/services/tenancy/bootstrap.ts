import { generateApiKey } from '../../auth/api-key';
import type { Role } from '../../auth/permissions';
import { createAppWithDefaults } from '../../store/app-creation';
import type { Db } from '../../store/db';
import { tenancyStore } from '../../store/tenancy';
import { ownerIdpId } from './organization';

export interface BootstrapInput {
  org: string;
  space: string;
  serviceOwner?: boolean;
  /** Identity-provider id of the owner user; defaults to `owner@<org>`. */
  idpId?: string;
  role?: Role;
  rateLimit?: number;
}

export interface BootstrapResult {
  org_id: string;
  app_id: string;
  user_id: string;
  /** Shown once; only its hash is stored. */
  api_key: string;
}

/**
 * Creates an organization (or reuses one of that name), its owner user, a Space with the default
 * models and a key bound to that Space, in one transaction.
 */
export async function bootstrapTenant(db: Db, input: BootstrapInput): Promise<BootstrapResult> {
  const key = generateApiKey();
  return db.$transaction(async (tx) => {
    const org = (await tenancyStore.findOrganizationByName(tx, input.org)) ?? (await tenancyStore.createOrganization(tx, input.org));
    const idpId = input.idpId ?? ownerIdpId(input.org);
    const user = await tenancyStore.upsertUser(tx, { orgId: org.id, idpId, name: idpId, isServiceOwner: input.serviceOwner ?? false });
    const app = await createAppWithDefaults(tx, {
      orgId: org.id,
      idpId,
      name: input.space,
      rateLimit: input.rateLimit,
      extra: { hashed_key: key.hashedKey, key_end: key.keyEnd },
    });
    await tenancyStore.createKey(tx, {
      orgId: org.id,
      userId: user.id,
      appId: app.id,
      role: input.role ?? 'owner',
      name: `${input.space} key`,
      hashedKey: key.hashedKey,
      keyEnd: key.keyEnd,
    });
    return { org_id: org.id, app_id: app.id, user_id: user.id, api_key: key.secret };
  });
}
