import { z } from 'zod';
import { endpoint, parseBody, type NetworkCall } from './call';
import type { MastodonAccount } from './mastodon';
import { MASTODON_LIMIT, type TextLimit } from './text';

/** How long an instance's limit is reused, in ms; a lookup that failed is tried again sooner. */
const KNOWN_MS = 60 * 60 * 1000;
const FALLBACK_MS = 5 * 60 * 1000;
/** Longest wait for the instance document, in ms: the post itself must keep its time. */
const LOOKUP_TIMEOUT_MS = 3000;
/** Instances remembered at once (one per Space account at most). */
const MAX_INSTANCES = 1000;

/** `GET /api/v2/instance` (Mastodon 4.0+): the part that says how long a status may be. */
const instanceSchema = z.object({ configuration: z.object({ statuses: z.object({ max_characters: z.number().int().positive() }) }) });

/**
 * Each instance's own status length (`configuration.statuses.max_characters`: 500 on a stock
 * instance, more on many others), so a long answer is cut where that instance cuts, not at 500.
 * An instance that does not say (older versions, a failure) gets Mastodon's default.
 */
export class MastodonLimits {
  private readonly known = new Map<string, { limit: TextLimit; until: number }>();

  async of(account: MastodonAccount, call: NetworkCall, now = Date.now()): Promise<TextLimit> {
    const cached = this.known.get(account.instanceUrl);
    if (cached && cached.until > now) return cached.limit;
    const looked = await this.lookup(account, call);
    this.known.delete(account.instanceUrl);
    this.known.set(account.instanceUrl, { limit: looked ?? MASTODON_LIMIT, until: now + (looked ? KNOWN_MS : FALLBACK_MS) });
    if (this.known.size > MAX_INSTANCES) this.known.delete(this.known.keys().next().value as string);
    return looked ?? MASTODON_LIMIT;
  }

  private async lookup(account: MastodonAccount, call: NetworkCall): Promise<TextLimit | null> {
    try {
      const response = await call.http({
        method: 'GET',
        url: endpoint(account.instanceUrl, '/api/v2/instance'),
        headers: { accept: 'application/json' },
        signal: call.signal,
        timeoutMs: Math.min(call.timeoutMs, LOOKUP_TIMEOUT_MS),
        service: 'mastodon',
      });
      return { ...MASTODON_LIMIT, max: parseBody(response, instanceSchema, 'mastodon').configuration.statuses.max_characters };
    } catch {
      return null;
    }
  }
}
