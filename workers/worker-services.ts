import type { Logger } from 'pino';
import type { AsyncJobStore } from '../src/async-jobs/job-store';
import type { SpaceVersions } from '../src/cache/space-versions';
import type { SpaceSearchConfig } from '../src/config/plugins/space-search';
import type { Config } from '../src/config/schema';
import type { SpaceLookup } from '../src/intake/space-lookup';
import type { SpaceContextLoader } from '../src/store/space-context';
import type { Queues } from '../src/queue/queues';
import type { RedisClient } from '../src/queue/redis';
import type { SandboxSync } from '../src/services/apps/sandbox-sync';
import type { OpenAiFileService } from '../src/services/openai-files/openai-file-service';
import type { PromptService } from '../src/services/prompts/prompt-service';
import type { Db } from '../src/store/db';
import type { ClaimedRuns } from '../src/pipeline/claimed-runs';

/** What the workers take from the composition root (src/app/container.ts builds it): connections and the services they call. */
export interface WorkerServices {
  config: Readonly<Config>;
  logger: Logger;
  /** Handed to the repositories of store/, which alone query it. */
  db: Db;
  /** The service's own commands (auto-pipelined). */
  redis: RedisClient;
  /** BullMQ's connection: the workers' (not auto-pipelined). */
  queueConnection: RedisClient;
  queues: Queues;
  /** A separate connection (for subscriptions), closed with the rest. */
  dedicatedRedis(): RedisClient;
  /** Spaces as completions need them: one loader and cache for the API and the workers of this process. */
  spaceContexts: SpaceContextLoader;
  /** Spaces' configuration versions: bumped by every writer of a Space's configuration, read per completion. */
  spaceVersions: SpaceVersions;
  /** Spaces at their current configuration version (the two above together). */
  spaces: SpaceLookup;
  /** Async jobs' records in PostgreSQL (how they ended, for `GET /v1/chat/completions/jobs/{id}` and webhooks). */
  asyncJobs: AsyncJobStore;
  /** The space-search plugin's configuration (upload limit, embeddings backend). */
  spaceSearch: SpaceSearchConfig;
  prompts: PromptService;
  sandboxSync: SandboxSync;
  /** OpenAI's Files API (batch outputs). */
  openAiFiles: OpenAiFileService;
}

/** A worker process's completions, built by the composition root (src/app/build-completion-worker.ts). */
export interface CompletionWorker {
  runs: Pick<ClaimedRuns, 'run' | 'runDetached'>;
  /** Closes what the runs hold (reply publisher, log batcher, claims, plugin limits). */
  close(): Promise<void>;
}
