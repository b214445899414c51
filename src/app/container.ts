import { buildAuthenticator } from '../auth/build-authenticator';
import { KeyRevocations } from '../auth/key-revocations';
import { ApiKeyRepository } from '../store/api-keys';
import { KeyService } from '../services/keys/key-service';
import type { Infrastructure } from './infrastructure';
import type { ApiServices } from '../http/api-services';
import type { WorkerServices } from '../../workers/worker-services';
import { PromptRepository } from '../store/prompts';
import { PromptService } from '../services/prompts/prompt-service';
import { AppService } from '../services/apps/app-service';
import { AppModelService } from '../services/apps/app-model-service';
import { CustomModelService } from '../services/custom-models/custom-model-service';
import { SandboxSync } from '../services/apps/sandbox-sync';
import { AssistantRepository } from '../store/assistants';
import { ConversationRepository } from '../store/conversations';
import { LogRepository } from '../store/logs';
import { LogSummaryRepository } from '../store/log-summary';
import { findSpaceRef } from '../store/assistants';
import { AssistantService } from '../services/assistants/assistant-service';
import { ConversationService } from '../services/conversations/conversation-service';
import { LogService } from '../services/logs/log-service';
import { LogSummaryService } from '../services/logs/log-summary-service';
import { buildCompletionIntake } from './build-intake';
import { checkReadiness } from '../services/readiness';
import { SpaceVersions } from '../cache/space-versions';
import { ModelListService } from '../services/models/model-list-service';
import { ModelAvailability } from '../services/models/model-availability';
import { createProviderRegistry } from '../providers/registry';
import { SpaceLookup } from '../intake/space-lookup';
import { SpaceContextLoader } from '../store/space-context';
import { IdempotencyStore } from '../intake/idempotency-store';
import type { SpaceSearchConfig } from '../config/plugins/space-search';
import { SpaceFileRepository } from '../store/space-files';
import { SpaceFileService } from '../services/space-files/space-file-service';
import { createFileStore } from '../file-store/create-file-store';
import type { FileStore } from '../file-store/file-store';
import { OpenAiFileRepository } from '../store/openai-files';
import { OpenAiFileService } from '../services/openai-files/openai-file-service';
import { BatchRepository } from '../store/batches';
import { BatchService } from '../services/batches/batch-service';
import { secretBoxFor, type SecretBox } from '../secrets/secret-box';
import { asyncJobStore } from '../async-jobs/build-async-jobs';
import type { AsyncJobStore } from '../async-jobs/job-store';
import { RateLimiter } from '../intake/rate-limiter';
import { JobService } from '../async-jobs/job-service';
import { ResponseRecords } from '../store/response-records';
import { ResponseService } from '../services/responses/response-service';
import { buildEmbeddingService } from './build-embedding-service';

/**
 * Everything the HTTP layer and the workers call, built once from the infrastructure. The edges
 * name only what they use (http/api-services.ts, workers/worker-services.ts); this is the whole set.
 */
export interface Services extends Infrastructure, ApiServices, WorkerServices {
  sandboxSync: SandboxSync;
  /** Spaces' configuration versions: bumped by every writer of a Space's configuration, read per completion. */
  spaceVersions: SpaceVersions;
  /** Spaces as completions need them: one loader and cache for the API and the workers of this process. */
  spaceContexts: SpaceContextLoader;
  /** The space-search plugin's configuration (upload limit, embeddings backend). */
  spaceSearch: SpaceSearchConfig;
  /** Where OpenAI Files' bytes live (`FILE_STORAGE`). */
  fileStore: FileStore;
}

/** How long a process reuses a Space's configuration and models, in ms (a change applies at once through its version stamp). */
const SPACE_CONTEXT_MS = 2000;

/** Plugin parts a caller may supply instead of the configuration's (tests). */
export interface PluginServiceOptions {
  /** Seals Space credentials; absent: the box of `PLUGIN_SECRETS_KEY` (null there: none can be stored). */
  secrets?: SecretBox | null;
}

/** What several services share, built once: the Space lookups, the repositories and Redis stores used in more than one place. */
interface Shared {
  spaceVersions: SpaceVersions;
  spaceContexts: SpaceContextLoader;
  spaces: SpaceLookup;
  idempotency: IdempotencyStore;
  asyncJobs: AsyncJobStore;
  rateLimiter: RateLimiter;
  prompts: PromptRepository;
  assistants: AssistantRepository;
  conversations: ConversationRepository;
  secrets: SecretBox | null;
  /** Whether each model can answer now (provider keys, custom model credentials), read from the configuration once. */
  availability: ModelAvailability;
}

function sharedParts({ config, db, redis, keySpace }: Infrastructure, plugins: PluginServiceOptions): Shared {
  const spaceVersions = new SpaceVersions(redis, keySpace);
  const spaceContexts = new SpaceContextLoader(db, SPACE_CONTEXT_MS);
  return {
    spaceVersions,
    spaceContexts,
    spaces: new SpaceLookup(spaceContexts, spaceVersions),
    idempotency: new IdempotencyStore(redis, keySpace),
    asyncJobs: asyncJobStore({ db, config }),
    rateLimiter: new RateLimiter(redis, keySpace),
    prompts: new PromptRepository(db),
    assistants: new AssistantRepository(db),
    conversations: new ConversationRepository(db),
    secrets: plugins.secrets === undefined ? secretBoxFor(config.secrets.keys) : plugins.secrets,
    availability: new ModelAvailability(createProviderRegistry(config)),
  };
}

/** The admin API's services: prompts, assistants, conversations, logs, Spaces and their models. */
function adminServices(infra: Infrastructure, shared: Shared) {
  const { config, db, queues } = infra;
  const { spaceVersions, secrets } = shared;
  return {
    prompts: new PromptService(shared.prompts, async (prompt) => {
      await queues.promptReview.add('screen', { promptId: prompt.id, publishedOn: (prompt.published_on ?? new Date()).toISOString() });
    }),
    assistants: new AssistantService({ assistants: shared.assistants, prompts: shared.prompts, autoModelName: config.autoModelName, versions: spaceVersions }),
    conversations: new ConversationService(shared.conversations, shared.assistants),
    logs: new LogService(new LogRepository(db)),
    logSummary: new LogSummaryService(new LogSummaryRepository(db), (appId) => findSpaceRef(db, appId)),
    apps: new AppService({
      db,
      versions: spaceVersions,
      keptAnswers: shared.idempotency,
      asyncResults: shared.asyncJobs,
      enqueueSandboxSync: async (job) => {
        await queues.sandboxSync.add('sync', job);
      },
      secrets,
      availability: shared.availability,
    }),
    appModels: new AppModelService(db, { versions: spaceVersions, availability: shared.availability }),
    customModels: new CustomModelService({
      db,
      versions: spaceVersions,
      secrets,
      allowedHosts: config.plugins.net.ssrfAllowedHosts,
      autoModelName: config.autoModelName,
    }),
    sandboxSync: new SandboxSync(db, spaceVersions),
  };
}

/** Files: Space files for space-search, OpenAI's Files and Batch APIs. */
function fileServices({ config, db, queues }: Infrastructure, { spaces, spaceVersions }: Shared) {
  const spaceSearch = config.plugins.spaceSearch;
  const fileStore = createFileStore(config.batches.fileStore);
  const openAiFiles = new OpenAiFileService({
    files: new OpenAiFileRepository(db),
    store: fileStore,
    maxBytes: config.batches.fileMaxBytes,
    maxLines: config.batches.maxLines,
  });
  return {
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
  };
}

export function buildServices(infra: Infrastructure, plugins: PluginServiceOptions = {}): Services {
  const { config, db, redis, queues } = infra;
  const shared = sharedParts(infra, plugins);
  const { spaces, rateLimiter } = shared;
  const completions = buildCompletionIntake(infra, { spaces, rateLimiter, asyncJobs: shared.asyncJobs });
  const authenticator = buildAuthenticator(infra);
  const revocations = new KeyRevocations(redis, config.redisPrefix);
  return {
    ...infra,
    ...adminServices(infra, shared),
    ...fileServices(infra, shared),
    authenticator,
    keys: new KeyService({
      db,
      keys: new ApiKeyRepository(db),
      forget: async (hashes) => {
        hashes.forEach((hashed) => authenticator.forget(hashed));
        await revocations.announce(hashes);
      },
    }),
    completions,
    embeddings: buildEmbeddingService(infra, { spaces, rateLimiter }),
    responses: new ResponseService({
      records: new ResponseRecords(db),
      conversations: shared.conversations,
      privacyOf: (auth, request) => completions.privacyNow(auth, request),
    }),
    models: new ModelListService({ db, spaces, autoModelName: config.autoModelName, availability: shared.availability }),
    jobs: new JobService({ store: shared.asyncJobs, queue: queues.completions, publisher: redis, prefix: config.redisPrefix }),
    idempotency: shared.idempotency,
    spaceVersions: shared.spaceVersions,
    spaceContexts: shared.spaceContexts,
    spaces,
    asyncJobs: shared.asyncJobs,
    readiness: () => checkReadiness(db, redis),
  };
}
