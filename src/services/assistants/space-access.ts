import { canSeeApp, type AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import type { SpaceRef } from '../../store/assistants';

export type FindSpace = (appId: string) => Promise<SpaceRef | null>;

/** The Space, if the caller may see it; another organization's Space answers exactly like an unknown id. */
export async function requireVisibleSpace(findSpace: FindSpace, auth: AuthContext, appId: string): Promise<SpaceRef> {
  const space = await findSpace(appId);
  if (!space || !canSeeApp(auth, space)) throw ApiError.notFound('Space', 'app_id');
  return space;
}
