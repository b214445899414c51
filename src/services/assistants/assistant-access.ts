import type { AuthContext } from '../../auth/auth-context';

interface Guarded {
  added_by: string;
  definition_visibility: string;
}

/**
 * Within its organization, a `private` definition is its creator's alone; `organization` and
 * `public` show it to every key of the organization. Nothing crosses organizations, so the two are
 * the same here.
 */
export function canSeeDefinition(auth: Pick<AuthContext, 'idpId'>, assistant: Guarded): boolean {
  return assistant.definition_visibility !== 'private' || assistant.added_by === auth.idpId;
}
