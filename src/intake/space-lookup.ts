import type { AuthContext } from '../auth/auth-context';
import type { SpaceVersions } from '../cache/space-versions';
import { ApiError } from '../errors/api-error';
import type { SpaceContext, SpaceContextLoader } from '../pipeline/space-context';

/** A Space as the API found it, with the configuration version it was read at (handed on to the worker). */
export interface FoundSpace {
  space: SpaceContext | null;
  stamp: string;
}

/**
 * Spaces as the API sees them, through the same loader (and cache) as the worker. Each request reads the
 * Space's version stamp (one Redis GET) and reuses the cached context only if it was loaded at that
 * stamp; the TTL only bounds how long an unchanged Space goes without a query.
 */
export class SpaceLookup {
  constructor(
    private readonly contexts: SpaceContextLoader,
    private readonly versions: SpaceVersions,
  ) {}

  async find(appId: string): Promise<FoundSpace> {
    const stamp = await this.versions.read(appId);
    return { space: await this.contexts.load(appId, stamp), stamp };
  }

  /**
   * The active Space of a Space key, for a request that runs in it (a completion, embeddings): a key of
   * no Space is refused, a Space of another organization is not found, a deactivated one is refused.
   */
  async forKey(auth: AuthContext): Promise<{ space: SpaceContext; stamp: string }> {
    if (!auth.appId) {
      throw new ApiError('invalid_request', 'This key is not bound to a Space; completions need a Space key (see `cli keys create --app-id`).', 'Authorization');
    }
    const { space, stamp } = await this.find(auth.appId);
    if (!space || space.orgId !== auth.orgId) throw ApiError.notFound('Space', 'Authorization');
    if (!space.isActive) throw new ApiError('space_inactive', 'This Space is deactivated.');
    return { space, stamp };
  }
}
