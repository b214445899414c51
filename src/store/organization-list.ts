import type { Db } from './db';

export interface OrganizationListing {
  id: string;
  name: string;
  /** Its Spaces, sandboxes included. */
  spaces: number;
  added_on: string;
}

/** Every organization, oldest first, for the operator (the API never lists other organizations). */
export async function listOrganizations(db: Db): Promise<OrganizationListing[]> {
  const rows = await db.organization.findMany({
    orderBy: [{ added_on: 'asc' }, { id: 'asc' }],
    select: { id: true, name: true, added_on: true, _count: { select: { apps: true } } },
  });
  return rows.map((row) => ({ id: row.id, name: row.name, spaces: row._count.apps, added_on: row.added_on.toISOString() }));
}
