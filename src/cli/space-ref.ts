import { ApiError } from '../errors/api-error';
import { appStore } from '../store/apps';
import type { Db } from '../store/db';

export interface SpaceRef {
  id: string;
  org_id: string;
  name: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A Space named on the command line by id, or by name (main Spaces only, not sandboxes). A name
 * several organizations use needs `--org-id`; the message lists them.
 */
export async function findSpace(db: Db, { space, orgId }: { space: string; orgId?: string }): Promise<SpaceRef> {
  if (UUID.test(space)) {
    const byId = await appStore.findRefById(db, { id: space.toLowerCase(), orgId });
    if (byId) return byId;
  }
  const byName = await appStore.findRefsByName(db, { name: space, orgId, take: 10 });
  const [first, second] = byName;
  if (!first) throw new ApiError('not_found', `No Space '${space}'${orgId ? ` in organization ${orgId}` : ''}. See \`spaces list --org-id <uuid>\`.`, 'space');
  if (second && !orgId) {
    const orgs = [...new Set(byName.map((s) => s.org_id))].join(', ');
    throw new ApiError('invalid_value', `Several Spaces are named '${space}' (organizations ${orgs}); give its id, or add --org-id.`, 'space');
  }
  return first;
}
