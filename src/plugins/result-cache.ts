import { createHash } from 'node:crypto';
import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';
import { stringify } from 'safe-stable-stringify';
import type { PluginId, PluginOutput } from './types';

/**
 * What makes two runs of a plugin give the same output: the query, and everything else that
 * changes the result (the settings that matter, e.g. `max_results`, the backend, and for
 * space-search the data Space whose files are searched). Leaving out a part that matters would
 * hand one caller another's result, so when in doubt, include it.
 */
export type CacheKeyParts = { query: string } & Record<string, unknown>;

/** The query as the cache compares it: lower-cased, whitespace collapsed and trimmed. */
export function normaliseQuery(query: string): string {
  return query.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** sha256 of the normalised parts, so neither the query nor the settings appear in a Redis key. */
export function cacheDigest(pluginId: PluginId, parts: CacheKeyParts): string {
  const normal = stringify({ ...parts, query: normaliseQuery(parts.query), plugin: pluginId }) ?? '';
  return createHash('sha256').update(normal, 'utf8').digest('hex');
}

function isPluginOutput(value: unknown): value is PluginOutput {
  if (typeof value !== 'object' || value === null) return false;
  const output = value as Partial<PluginOutput>;
  return (
    (output.context === null || typeof output.context === 'string') &&
    Array.isArray(output.searchResults) &&
    Array.isArray(output.artifacts) &&
    typeof output.costUsd === 'number'
  );
}

/**
 * Plugin outputs kept in Redis by plugin id and normalised input, for a TTL.
 *
 * The caller (the plugin runner) decides when to use it, and must use it ONLY at privacy level 1:
 * at level 2 results are not cached (child logs are masked there), and at level 3 nothing of the
 * query or its results may be stored anywhere. It must also not cache plugins that act (social-post)
 * or whose input is not all in the key (a transcription of an uploaded file, unless the file's
 * digest is a key part). A hit made no backend call, so `get` returns it with `costUsd` 0.
 *
 * Redis trouble never fails a request: a read that fails is a miss and a write that fails is
 * skipped, both logged.
 */
export class PluginResultCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  async get(pluginId: PluginId, keyParts: CacheKeyParts): Promise<PluginOutput | null> {
    try {
      const text = await this.redis.get(this.key(pluginId, keyParts));
      if (text === null) return null;
      const value: unknown = JSON.parse(text);
      if (!isPluginOutput(value)) {
        this.logger.warn({ plugin: pluginId }, 'plugin cache entry has an unexpected shape; ignored');
        return null;
      }
      return { ...value, costUsd: 0 };
    } catch (err) {
      this.logger.warn({ err, plugin: pluginId }, 'plugin cache read failed; treated as a miss');
      return null;
    }
  }

  /** Keeps `output` for `ttlSeconds` (0 or less: not kept, as `PLUGIN_CACHE_TTL_SECONDS=0` asks). */
  // eslint-disable-next-line max-params -- the runner's agreed call shape: get/set by plugin and key parts
  async set(pluginId: PluginId, keyParts: CacheKeyParts, output: PluginOutput, ttlSeconds: number): Promise<void> {
    if (!(ttlSeconds > 0)) return;
    try {
      await this.redis.set(this.key(pluginId, keyParts), JSON.stringify(output), 'EX', Math.ceil(ttlSeconds));
    } catch (err) {
      this.logger.warn({ err, plugin: pluginId }, 'plugin cache write failed; not cached');
    }
  }

  private key(pluginId: PluginId, keyParts: CacheKeyParts): string {
    return `${this.prefix}:plugin-cache:${pluginId}:${cacheDigest(pluginId, keyParts)}`;
  }
}
