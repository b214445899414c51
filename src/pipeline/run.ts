import type { Logger } from 'pino';
import type { CompletionJob } from '../queue/payloads';
import type { Reply } from '../queue/replies';
import type { SpaceContext } from '../store/space-context';
import type { ModelPlan } from './model-plan';
import type { PreparedCompletion } from './prepare-request';
import type { RunTrace } from './run-trace';

/**
 * One run of one completion job, once its Space, request and model plan are known: values only. The
 * process's services a step calls (providers, breakers, plugins) are handed to it apart (StepServices).
 */
export interface Run {
  job: CompletionJob;
  /** This execution of the job: a job run again after its worker died has another. */
  id: string;
  space: SpaceContext;
  prepared: PreparedCompletion;
  plan: ModelPlan;
  trace: RunTrace;
  signal: AbortSignal;
  logger: Logger;
  /** Sends a message to the API process waiting for the request (the final one is held until the log is committed). */
  reply(reply: Reply): Promise<void>;
}
