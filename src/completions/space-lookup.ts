import { TtlCache } from '../cache/ttl-cache';
import type { SpaceVersions } from '../cache/space-versions';
import type { Db } from '../store/db';
import { readPolicies } from '../services/apps/space-config';

/** What the API needs of a Space before it enqueues a completion. */
export interface SpaceGate {
  id: string;
  orgId: string;
  isActive: boolean;
  /** Requests per minute; 0 = no limit. */
  rateLimit: number;
  privacyLevel: number;
}

/** A Space as the API found it, with the configuration version it was read at (handed on to the worker). */
export interface FoundSpace {
  gate: SpaceGate | null;
  stamp: string;
}

/**
 * Spaces as the API sees them. Each request reads the Space's version stamp (one Redis GET) and reuses
 * the cached row only if it was loaded at that stamp, so a configuration change applies to the next
 * request in every process; the TTL only bounds how long an unchanged Space goes without a query.
 */
export class SpaceLookup {
  private readonly cache: TtlCache<SpaceGate | null>;

  constructor(
    private readonly db: Db,
    private readonly versions: SpaceVersions,
    ttlMs: number,
  ) {
    this.cache = new TtlCache(ttlMs);
  }

  async find(appId: string): Promise<FoundSpace> {
    const stamp = await this.versions.read(appId);
    const gate = await this.cache.get(appId, () => this.load(appId), { stamp });
    return { gate, stamp };
  }

  private async load(appId: string): Promise<SpaceGate | null> {
    const row = await this.db.app.findUnique({
      where: { id: appId },
      select: { id: true, org_id: true, is_active: true, rate_limit: true, policies: true },
    });
    if (!row) return null;
    return { id: row.id, orgId: row.org_id, isActive: row.is_active, rateLimit: row.rate_limit, privacyLevel: readPolicies(row.policies).privacy_level };
  }
}
