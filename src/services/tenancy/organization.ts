import { ApiError } from '../../errors/api-error';
import type { Tx } from '../../store/db';
import { tenancyStore } from '../../store/tenancy';

/** Identity-provider id of an organization's first user when the operator names none. */
export function ownerIdpId(orgName: string): string {
  return `owner@${orgName}`;
}

export async function requireOrganization(tx: Tx, orgId: string) {
  const org = await tenancyStore.findOrganization(tx, orgId);
  if (!org) throw new ApiError('not_found', `Organization ${orgId} not found.`, 'org_id');
  return org;
}
