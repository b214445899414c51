import type { RateLimiter } from '../intake/rate-limiter';
import type { SpaceLookup } from '../intake/space-lookup';
import { LogBatcher } from '../store/log-batcher';
import { createProviderRegistry } from '../providers/registry';
import type { Infrastructure } from './infrastructure';
import { modelStore } from '../store/models';
import { EmbeddingService } from '../embeddings/embedding-service';

/** The embeddings service of an API process: its own provider bindings and log writer, the shared Space lookup. */
export function buildEmbeddingService(infra: Infrastructure, { spaces, rateLimiter }: { spaces: SpaceLookup; rateLimiter: RateLimiter }): EmbeddingService {
  const { config, db, logger } = infra;
  return new EmbeddingService({
    spaces,
    rateLimiter,
    registry: createProviderRegistry(config),
    logs: new LogBatcher(db, logger),
    logger,
    autoModelName: config.autoModelName,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    requestTimeoutMs: config.completionTimeoutMs,
    modelExists: (orgId, name) => modelStore.nameKnownTo(db, orgId, name),
  });
}
