import { TtlCache } from '../../cache/ttl-cache';
import type { Db } from '../../store/db';
import { routingFeedbackStore } from '../../store/routing-feedback';
import { SpaceFeedback } from './space-feedback';

/**
 * Spaces' feedback reused for a moment by the worker (like SpaceContextLoader), so a busy Space
 * costs one query per interval rather than one per request; a rating shows up within `ttlMs`.
 */
export class SpaceFeedbackLoader {
  private readonly cache: TtlCache<SpaceFeedback>;

  constructor(
    private readonly db: Db,
    /** How long a Space's feedback is reused, ms (the worker uses 2000). */
    ttlMs: number,
  ) {
    this.cache = new TtlCache(ttlMs);
  }

  load(appId: string): Promise<SpaceFeedback> {
    return this.cache.get(appId, async () => new SpaceFeedback(await routingFeedbackStore.forSpace(this.db, appId)));
  }
}
