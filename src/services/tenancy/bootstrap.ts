import { generateApiKey } from '../../auth/api-key';
import type { Role } from '../../domain/permissions';
import { createAppWithDefaults } from '../../store/app-creation';
import type { Db } from '../../store/db';
import { tenancyStore } from '../../store/tenancy';
import { ownerIdpId } from './organization';
import { applySpaceOptions, catalogModelIds } from './space-setup';

export interface BootstrapInput {
  org: string;
  space: string;
  serviceOwner?: boolean;
  /** Identity-provider id of the owner user; defaults to `owner@<org>`. */
  idpId?: string;
  role?: Role;
  rateLimit?: number;
  /** Catalog models (by name) switched on in the Space besides the catalog's default ones, e.g. `test-echo`. */
  activate?: readonly string[];
}

export interface BootstrapResult {
  org_id: string;
  app_id: string;
  user_id: string;
  /** Shown once; only its hash is stored. */
  api_key: string;
  /**
   * The organization already had a main Space of that name: it was reused (with `rateLimit` and
   * `activate` applied to it) instead of creating a second one, and only the key is new.
   */
  reused: boolean;
}

/**
 * Creates an organization (or reuses one of that name), its owner user, a Space with the default
 * models (or reuses the organization's Space of that name) and a new key bound to that Space, in one
 * transaction. Bootstraps of one organization name run one at a time, so running the same command
 * twice, even at once, never makes a second organization or Space.
 */
export async function bootstrapTenant(db: Db, input: BootstrapInput): Promise<BootstrapResult> {
  const key = generateApiKey();
  return db.$transaction(async (tx) => {
    await tenancyStore.lockOrganizationName(tx, input.org);
    const org = (await tenancyStore.findOrganizationByName(tx, input.org)) ?? (await tenancyStore.createOrganization(tx, input.org));
    const idpId = input.idpId ?? ownerIdpId(input.org);
    const user = await tenancyStore.upsertUser(tx, { orgId: org.id, idpId, name: idpId, isServiceOwner: input.serviceOwner ?? false });
    const modelIds = await catalogModelIds(tx, input.activate ?? []);
    const existing = await tenancyStore.findSpaceByName(tx, org.id, input.space);
    const app =
      existing ??
      (await createAppWithDefaults(tx, {
        orgId: org.id,
        idpId,
        name: input.space,
        rateLimit: input.rateLimit,
        extra: { hashed_key: key.hashedKey, key_end: key.keyEnd },
      }));
    await applySpaceOptions(tx, { app, idpId, rateLimit: existing ? input.rateLimit : undefined, modelIds });
    await tenancyStore.createKey(tx, {
      orgId: org.id,
      userId: user.id,
      appId: app.id,
      role: input.role ?? 'owner',
      name: `${input.space} key`,
      hashedKey: key.hashedKey,
      keyEnd: key.keyEnd,
    });
    return { org_id: org.id, app_id: app.id, user_id: user.id, api_key: key.secret, reused: existing !== null };
  });
}
