import { TtlCache } from '../cache/ttl-cache';
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

/** Spaces as the API sees them, reused for a couple of seconds so a request costs no query. */
export class SpaceLookup {
  private readonly cache: TtlCache<SpaceGate | null>;

  constructor(
    private readonly db: Db,
    ttlMs: number,
  ) {
    this.cache = new TtlCache(ttlMs);
  }

  find(appId: string): Promise<SpaceGate | null> {
    return this.cache.get(appId, async () => {
      const row = await this.db.app.findUnique({
        where: { id: appId },
        select: { id: true, org_id: true, is_active: true, rate_limit: true, policies: true },
      });
      if (!row) return null;
      return { id: row.id, orgId: row.org_id, isActive: row.is_active, rateLimit: row.rate_limit, privacyLevel: readPolicies(row.policies).privacy_level };
    });
  }
}
