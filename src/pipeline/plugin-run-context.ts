import type { Logger } from 'pino';
import type { CompletionJob } from '../queue/payloads';
import type { Reply } from '../queue/replies';
import type { PreparedCompletion } from './prepare-request';
import type { RunTrace } from './run-trace';
import type { SpaceContext } from './space-context';

/** What a plugin step reads of the run it is part of (a RunContext is one; this file keeps plugin-steps.ts and run-context.ts from importing each other). */
export interface PluginRunContext {
  job: CompletionJob;
  run: string;
  space: SpaceContext;
  prepared: PreparedCompletion;
  signal: AbortSignal;
  logger: Logger;
  trace: RunTrace;
  /** Sends a message to the API process waiting for the request. */
  reply(reply: Reply): Promise<void>;
}
