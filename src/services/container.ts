import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Authenticator } from '../auth/authenticator';
import type { Config } from '../config/schema';
import type { Queues } from '../queue/queues';
import { ApiKeyRepository } from '../store/api-keys';
import type { Db } from '../store/db';
import { PromptRepository } from '../store/prompts';
import { PromptService } from './prompts/prompt-service';
import { checkReadiness, type ReadinessReport } from './readiness';

export interface Infrastructure {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  redis: Redis;
  queues: Queues;
}

/** Everything the HTTP layer and the workers call, built once from the infrastructure. */
export interface Services extends Infrastructure {
  authenticator: Authenticator;
  prompts: PromptService;
  readiness(): Promise<ReadinessReport>;
}

export function buildServices(infra: Infrastructure): Services {
  const { config, db, redis, queues } = infra;
  return {
    ...infra,
    authenticator: new Authenticator(new ApiKeyRepository(db), { cacheTtlMs: config.authCacheTtlMs }),
    prompts: new PromptService(new PromptRepository(db), async (prompt) => {
      await queues.promptReview.add('screen', { promptId: prompt.id, publishedOn: (prompt.published_on ?? new Date()).toISOString() });
    }),
    readiness: () => checkReadiness(db, redis),
  };
}
