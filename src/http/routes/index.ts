import type { ApiServices } from '../api-services';
import type { Route } from '../route';
import { chatCompletionRoutes } from './chat-completions';
import { responsesRoutes } from './responses';
import { messagesRoutes } from './messages';
import { promptRoutes } from './prompts';
import { appRoutes } from './apps';
import { appModelRoutes } from './app-models';
import { assistantRoutes } from './assistants';
import { conversationRoutes } from './conversations';
import { jobRoutes } from './jobs';
import { logRoutes } from './logs';
import { modelRoutes } from './models';
import { spaceFileRoutes } from './space-files';
import { openAiFileRoutes } from './openai-files';
import { batchRoutes } from './batches';
import { customModelRoutes } from './custom-models';
import { embeddingRoutes } from './embeddings';
import { keyRoutes } from './keys';

/** Every authenticated API route, in the order the OpenAPI document lists them. */
export function allRoutes(services: ApiServices): Route[] {
  return [
    ...chatCompletionRoutes(services),
    ...responsesRoutes(services),
    ...messagesRoutes(services),
    ...embeddingRoutes(services),
    ...modelRoutes(services),
    ...jobRoutes(services),
    ...promptRoutes(services),
    ...appRoutes(services),
    ...appModelRoutes(services),
    ...assistantRoutes(services),
    ...conversationRoutes(services),
    ...spaceFileRoutes(services),
    ...logRoutes(services),
    ...openAiFileRoutes(services),
    ...batchRoutes(services),
    ...customModelRoutes(services),
    ...keyRoutes(services),
  ];
}
