import type { AuthContext } from '../auth/auth-context';
import type { SpaceVersions } from '../cache/space-versions';
import { ApiError } from '../errors/api-error';
import type { SpaceContext, SpaceContextLoader } from '../store/space-context';

/** A Space as the API found it, with the configuration version it was read at (handed on to the worker). */
export interface FoundSpace {
  space: SpaceContext | null;
  stamp: string;
}

/**
 * Spaces as the API sees them, through the same loader (and cache) as the worker. Each request reads the
 * Space's version stamp (an MGET shared by the requests of one event-loop turn), or has it confirmed by
 * its rate limit's take (`loadedForKey`), and reuses the cached context only if it was loaded at that
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
   * The Space of a Space key as this process loaded it last, with no Redis read: its stamp is still to be
   * confirmed (`RateLimiter.takeAtStamp` does, in the same round trip as the take). Null when nothing
   * fresh is loaded, or when what is loaded would refuse the key: that answer is made on a read stamp.
   */
  loadedForKey(auth: AuthContext): { space: SpaceContext; stamp: string; stampKey: string } | null {
    if (!auth.appId) return null;
    const loaded = this.contexts.loaded(auth.appId);
    if (!loaded?.space || refusal(auth, loaded.space)) return null;
    return { space: loaded.space, stamp: loaded.stamp, stampKey: this.versions.keyOf(auth.appId) };
  }

  /**
   * The active Space of a Space key, for a request that runs in it (a completion, embeddings): a key of
   * no Space is refused, a Space of another organization is not found, a deactivated one is refused.
   * `stamp`: the Space's stamp as the caller has just read it (else it is read here).
   */
  async forKey(auth: AuthContext, stamp?: string): Promise<{ space: SpaceContext; stamp: string }> {
    if (!auth.appId) {
      throw new ApiError(
        'invalid_request',
        'This key is not bound to a Space; completions need a Space key (see `cli keys create --app-id`).',
        'Authorization',
      );
    }
    const at = stamp ?? (await this.versions.read(auth.appId));
    const space = await this.contexts.load(auth.appId, at);
    const refused = refusal(auth, space);
    if (refused || !space) throw refused ?? ApiError.notFound('Space', 'Authorization');
    return { space, stamp: at };
  }
}

/** Why a Space key may not run in its Space as found: gone or of another organization (404), or deactivated. */
function refusal(auth: AuthContext, space: SpaceContext | null): ApiError | null {
  if (!space || space.orgId !== auth.orgId) return ApiError.notFound('Space', 'Authorization');
  if (!space.isActive) return new ApiError('space_inactive', 'This Space is deactivated.');
  return null;
}
