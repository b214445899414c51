import type { SpaceVersions } from '../cache/space-versions';
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
}
