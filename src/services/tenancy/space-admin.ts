import { createAppWithDefaults } from '../../store/app-creation';
import { inTransaction, type Db } from '../../store/db';
import { tenancyStore } from '../../store/tenancy';
import { ownerIdpId, requireOrganization } from './organization';

export interface NewSpace {
  orgId: string;
  name: string;
  /** Recorded as the Space's creator; defaults to the organization's owner user. */
  idpId?: string;
}

export interface CreatedSpace {
  app_id: string;
  name: string;
}

export interface SpaceListing {
  id: string;
  name: string;
  is_active: boolean;
  sandbox_of: string | null;
  added_on: string;
}

/** Creates a Space with the catalog's default models switched on. */
export async function createSpace(db: Db, input: NewSpace): Promise<CreatedSpace> {
  return inTransaction(db, async (tx) => {
    const org = await requireOrganization(tx, input.orgId);
    const app = await createAppWithDefaults(tx, { orgId: org.id, idpId: input.idpId ?? ownerIdpId(org.name), name: input.name });
    return { app_id: app.id, name: app.name };
  });
}

/** Every Space of the organization, sandboxes included, oldest first. */
export async function listSpaces(db: Db, orgId: string): Promise<SpaceListing[]> {
  await requireOrganization(db, orgId);
  const apps = await tenancyStore.listApps(db, orgId);
  return apps.map((a) => ({ ...a, added_on: a.added_on.toISOString() }));
}
