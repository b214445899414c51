import type { RedisClient as Redis } from '../queue/redis';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator';
import { buildAuthenticator } from '../auth/build-authenticator';
import type { Config } from '../config/schema';
import type { Queues } from '../queue/queues';
import type { Db } from '../store/db';
import { PromptRepository } from '../store/prompts';
import { PromptService } from './prompts/prompt-service';
import { AppService } from './apps/app-service';
import { AppModelService } from './apps/app-model-service';
import { CustomModelService } from './custom-models/custom-model-service';
import { SandboxSync } from './apps/sandbox-sync';
import { AssistantRepository } from '../store/assistants';
import { ConversationRepository } from '../store/conversations';
import { LogRepository } from '../store/logs';
import { LogSummaryRepository } from '../store/log-summary';
import { findSpaceRef } from '../store/assistants';
import { AssistantService } from './assistants/assistant-service';
import { ConversationService } from './conversations/conversation-service';
import { LogService } from './logs/log-service';
import { LogSummaryService } from './logs/log-summary-service';
import { buildCompletionIntake } from '../completions/build-intake';
import type { CompletionIntake } from '../completions/completion-intake';
import { checkReadiness, type ReadinessReport } from './readiness';
import { SpaceVersions } from '../cache/space-versions';
import { ModelListService } from './models/model-list-service';
import { SpaceLookup } from '../completions/space-lookup';
import { SpaceContextLoader } from '../pipeline/space-context';
import { IdempotencyStore } from '../completions/idempotency-store';
import type { SpaceSearchConfig } from '../config/plugins/space-search';
import { SpaceFileRepository } from '../store/space-files';
import { SpaceFileService } from './space-files/space-file-service';
import { createFileStore } from '../file-store/create-file-store';
import type { FileStore } from '../file-store/file-store';
import { OpenAiFileRepository } from '../store/openai-files';
import { OpenAiFileService } from './openai-files/openai-file-service';
import { BatchRepository } from '../store/batches';
import { BatchService } from './batches/batch-service';
import { secretBoxFor, type SecretBox } from '../secrets/secret-box';
import { asyncJobStore } from '../async-jobs/build-async-jobs';
import { JobService } from '../async-jobs/job-service';
import { ResponseRecords } from './responses/response-records';
import { ResponseService } from './responses/response-service';
import { buildEmbeddingService } from '../embeddings/build-embedding-service';
import type { EmbeddingService } from '../embeddings/embedding-service';

export interface Infrastructure {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  /** The service's own commands (auto-pipelined). */
  redis: Redis;
  /** BullMQ's connection: the queues' and the workers' (not auto-pipelined). */
  queueConnection: Redis;
  queues: Queues;
  /** Identifies this process, e.g. in the name of its reply channel. */
  instanceId: string;
  /** A separate connection (for subscriptions), closed with the rest. */
  dedicatedRedis(): Redis;
}

/** Everything the HTTP layer and the workers call, built once from the infrastructure. */
export interface Services extends Infrastructure {
  authenticator: Authenticator;
  prompts: PromptService;
  apps: AppService;
  appModels: AppModelService;
  customModels: CustomModelService;
  sandboxSync: SandboxSync;
  assistants: AssistantService;
  conversations: ConversationService;
  logs: LogService;
  /** Totals of logs per day, Space or model (the console's charts). */
  logSummary: LogSummaryService;
  completions: CompletionIntake;
  /** OpenAI's Responses API: stored responses and their chains (over conversations). */
  responses: ResponseService;
  /** `POST /v1/embeddings`, answered in the API process. */
  embeddings: EmbeddingService;
  /** Async chat completions (`Prefer: respond-async`): read and cancel. */
  jobs: JobService;
  /** Idempotency-Key records of completions, with the answers kept for repeats. */
  idempotency: IdempotencyStore;
  /** Spaces' configuration versions: bumped by every writer of a Space's configuration, read per completion. */
  spaceVersions: SpaceVersions;
  /** Spaces as completions need them: one loader and cache for the API and the workers of this process. */
  spaceContexts: SpaceContextLoader;
  /** `GET /v1/models`: the Space's models in OpenAI's list format. */
  models: ModelListService;
  /** The space-search plugin's configuration (upload limit, embeddings backend). */
  spaceSearch: SpaceSearchConfig;
  spaceFiles: SpaceFileService;
  /** Where OpenAI Files' bytes live (`FILE_STORAGE`). */
  fileStore: FileStore;
  /** OpenAI's Files API (batch inputs and outputs), per organization. */
  openAiFiles: OpenAiFileService;
  /** OpenAI's Batch API, API side. */
  batches: BatchService;
  readiness(): Promise<ReadinessReport>;
}

/** How long a process reuses a Space's configuration and models, in ms (a change applies at once through its version stamp). */
const SPACE_CONTEXT_MS = 2000;

/** Plugin parts a caller may supply instead of the configuration's (tests). */
export interface PluginServiceOptions {
  /** Seals Space credentials; absent: the box of `PLUGIN_SECRETS_KEY` (null there: none can be stored). */
  secrets?: SecretBox | null;
}

export function buildServices(infra: Infrastructure, plugins: PluginServiceOptions = {}): Services {
  const { config, db, redis, queues } = infra;
  const spaceVersions = new SpaceVersions(redis, config.redisPrefix);
  const idempotency = new IdempotencyStore(redis, config.redisPrefix);
  const spaceContexts = new SpaceContextLoader(db, SPACE_CONTEXT_MS);
  const secrets = plugins.secrets === undefined ? secretBoxFor(config.plugins.socialPost.secretKeys) : plugins.secrets;
  const spaces = new SpaceLookup(spaceContexts, spaceVersions);
  const spaceSearch = config.plugins.spaceSearch;
  const fileStore = createFileStore(config.batches.fileStore);
  const completions = buildCompletionIntake(infra, { spaces });
  const openAiFiles = new OpenAiFileService({ files: new OpenAiFileRepository(db), store: fileStore, maxBytes: config.batches.fileMaxBytes, maxLines: config.batches.maxLines });
  return {
    ...infra,
    authenticator: buildAuthenticator(infra),
    prompts: new PromptService(new PromptRepository(db), async (prompt) => {
      await queues.promptReview.add('screen', { promptId: prompt.id, publishedOn: (prompt.published_on ?? new Date()).toISOString() });
    }),
    assistants: new AssistantService({ assistants: new AssistantRepository(db), prompts: new PromptRepository(db), autoModelName: config.autoModelName, versions: spaceVersions }),
    conversations: new ConversationService(new ConversationRepository(db), new AssistantRepository(db)),
    logs: new LogService(new LogRepository(db)),
    logSummary: new LogSummaryService(new LogSummaryRepository(db), (appId) => findSpaceRef(db, appId)),
    apps: new AppService({
      db,
      versions: spaceVersions,
      keptAnswers: idempotency,
      asyncResults: asyncJobStore(infra),
      enqueueSandboxSync: async (job) => {
        await queues.sandboxSync.add('sync', job);
      },
      secrets,
    }),
    appModels: new AppModelService(db, spaceVersions),
    customModels: new CustomModelService({ db, versions: spaceVersions, secrets, allowedHosts: config.plugins.net.ssrfAllowedHosts, autoModelName: config.autoModelName }),
    sandboxSync: new SandboxSync(db, spaceVersions),
    completions,
    embeddings: buildEmbeddingService(infra, spaces),
    responses: new ResponseService({
      records: new ResponseRecords(db),
      conversations: new ConversationRepository(db),
      privacyLevelOf: (auth, request) => completions.privacyLevelNow(auth, request),
    }),
    models: new ModelListService({ db, spaces, autoModelName: config.autoModelName }),
    jobs: new JobService({ store: asyncJobStore(infra), queue: queues.completions, publisher: redis, prefix: config.redisPrefix }),
    idempotency,
    spaceVersions,
    spaceContexts,
    spaceSearch,
    spaceFiles: new SpaceFileService({
      db,
      files: new SpaceFileRepository(db),
      maxFileBytes: spaceSearch.maxFileBytes,
      versions: spaceVersions,
      enqueue: async (job) => {
        await queues.spaceFiles.add('ingest', job, { jobId: job.fileId });
      },
    }),
    fileStore,
    openAiFiles,
    batches: new BatchService({
      batches: new BatchRepository(db),
      findFile: (orgId, id) => openAiFiles.find(orgId, id),
      findSpace: async (appId) => (await spaces.find(appId)).space,
      enqueue: async (batchId) => {
        await queues.batches.add('batch', { batchId }, { jobId: batchId });
      },
      windowSeconds: config.batches.completionWindowSeconds,
      queuePrefix: config.redisPrefix,
    }),
    readiness: () => checkReadiness(db, redis),
  };
}
