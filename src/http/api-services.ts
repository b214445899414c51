import type { Logger } from 'pino';
import type { JobService } from '../async-jobs/job-service';
import type { Authenticator } from '../auth/authenticator';
import type { Config } from '../config/schema';
import type { EmbeddingService } from '../embeddings/embedding-service';
import type { CompletionIntake } from '../intake/completion-intake';
import type { IdempotencyStore } from '../intake/idempotency-store';
import type { Queues } from '../queue/queues';
import type { AppModelService } from '../services/apps/app-model-service';
import type { AppService } from '../services/apps/app-service';
import type { AssistantService } from '../services/assistants/assistant-service';
import type { BatchService } from '../services/batches/batch-service';
import type { ConversationService } from '../services/conversations/conversation-service';
import type { CustomModelService } from '../services/custom-models/custom-model-service';
import type { KeyService } from '../services/keys/key-service';
import type { LogService } from '../services/logs/log-service';
import type { LogSummaryService } from '../services/logs/log-summary-service';
import type { ModelListService } from '../services/models/model-list-service';
import type { OpenAiFileService } from '../services/openai-files/openai-file-service';
import type { PromptService } from '../services/prompts/prompt-service';
import type { ReadinessReport } from '../services/readiness';
import type { ResponseService } from '../services/responses/response-service';
import type { SpaceFileService } from '../services/space-files/space-file-service';

/** What the HTTP edge calls (src/app/container.ts builds it): the services behind the routes. */
export interface ApiServices {
  config: Readonly<Config>;
  logger: Logger;
  /** Shown on the operators' queue board. */
  queues: Queues;
  authenticator: Authenticator;
  prompts: PromptService;
  apps: AppService;
  appModels: AppModelService;
  customModels: CustomModelService;
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
  /** `GET /v1/models`: the Space's models in OpenAI's list format. */
  models: ModelListService;
  spaceFiles: SpaceFileService;
  /** OpenAI's Files API (batch inputs and outputs), per organization. */
  openAiFiles: OpenAiFileService;
  /** OpenAI's Batch API, API side. */
  batches: BatchService;
  /** `/v1/keys`: API keys managed from the API and the console. */
  keys: KeyService;
  readiness(): Promise<ReadinessReport>;
}
