import { RateLimiter } from '../completions/rate-limiter';
import type { SpaceLookup } from '../completions/space-lookup';
import { LogBatcher } from '../pipeline/log-batcher';
import { createProviderRegistry } from '../providers/registry';
import type { Infrastructure } from '../services/container';
import { EmbeddingService } from './embedding-service';

/** The embeddings service of an API process: its own provider bindings and log writer, the shared Space lookup. */
export function buildEmbeddingService(infra: Infrastructure, spaces: SpaceLookup): EmbeddingService {
  const { config, db, redis, logger } = infra;
  return new EmbeddingService({
    spaces,
    rateLimiter: new RateLimiter(redis, config.redisPrefix),
    registry: createProviderRegistry(config),
    logs: new LogBatcher(db, logger),
    logger,
    autoModelName: config.autoModelName,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    requestTimeoutMs: config.completionTimeoutMs,
    modelExists: async (orgId, name) =>
      (await db.model.count({ where: { model: name, OR: [{ app_id: null, org_id: null, is_public: true }, { org_id: orgId }] } })) > 0,
  });
}
