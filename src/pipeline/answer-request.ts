import { ApiError } from '../errors/api-error';
import { countTokens } from '../text/token-count';
import { statusOfError } from './attempt-record';
import { annotated } from './citations';
import { completionResult } from './completion-result';
import type { RequestOutcome } from './log-rows';
import { modelStep, type ModelStepResult } from './model-step';
import { pluginContextMessage, withPluginContext } from './plugin-context';
import { planPlugins, type PluginSelector } from './plugin-plan';
import { sentence } from './plugin-notes';
import type { PluginCall, PluginRun, PluginSteps } from './plugin-steps';
import type { Run } from './run';
import type { StepServices } from './step-services';
import { responseTextOf } from './stream-assembler';
import { answerWithTools, pluginInput } from './tool-loop';

/** How a request's steps ended: its answer or failure, and the answer's text for the log. */
export interface Answered {
  ended: RequestOutcome['ended'];
  responseText: string;
}

/** The plugins that run on the answer (social-post). A failure of one the request named fails the request. */
async function runAfterModel(run: Run, plugins: PluginSteps, { calls, answer }: { calls: PluginCall[]; answer: string }): Promise<ApiError | null> {
  if (calls.length === 0) return null;
  const runs = await plugins.runAll(run, calls, { ...pluginInput(run.prepared), answer });
  const failed = runs.find((done) => done.output === null && done.call.trigger !== 'preselected' && done.call.trigger !== 'tool_call');
  if (!failed) return null;
  const status = failed.error instanceof ApiError ? failed.error.status : 502;
  return new ApiError(
    status < 500 && status >= 400 ? 'invalid_request' : 'plugin_failed',
    sentence(`The plugin ${failed.problem ?? `${failed.call.id} failed: no output`}`),
    'plugins',
  );
}

/**
 * A plugin the request (or its assistant) named that refused the request's own input before the model (a
 * Space file id the Space does not have: 404; a URL that may not be fetched, a file too large: 4xx naming
 * `files[i]`): that refusal is the answer, and no model is called. A backend's failure (5xx, a timeout) is
 * not the client's fault and only leaves `metadata.error`.
 */
function refusedInput(runs: PluginRun[]): ApiError | null {
  const refused = runs.find(
    (done) =>
      done.output === null &&
      (done.call.trigger === 'requested' || done.call.trigger === 'assistant') &&
      done.error instanceof ApiError &&
      done.error.status < 500,
  );
  return (refused?.error as ApiError | undefined) ?? null;
}

/**
 * A request's steps after its model plan: the plugins that run first (named, or pre-selected by
 * auto_tools), the model (alone, or in auto_tools' tool loop), then the plugins that act on the answer.
 */
export async function answerRequest(
  run: Run,
  services: StepServices,
  options: { promptTokens: () => number; selector: PluginSelector; spaceHasFiles: (appId: string) => Promise<boolean> },
): Promise<Answered> {
  const plan = await planPlugins(run, services.plugins, options);
  let messages = run.prepared.chat.messages;
  if (plan.before.length > 0) {
    const runs = await services.plugins.runAll(run, plan.before, pluginInput(run.prepared));
    const refused = refusedInput(runs);
    if (refused) throw refused;
    messages = withPluginContext(messages, pluginContextMessage(runs));
  }
  const step: ModelStepResult =
    plan.offered.length > 0
      ? await answerWithTools(run, services, { messages, offered: plan.offered, after: plan.after })
      : await modelStep(run, services, {
          messages,
          tools: run.prepared.chat.tools,
          toolChoice: run.prepared.chat.tool_choice,
          attempts: run.plan.choices,
          // Counted again only when plugin context was added, and only if the upstream reports no usage.
          promptTokens: messages === run.prepared.chat.messages ? options.promptTokens : () => countTokens(JSON.stringify(messages)),
        });
  const choices = annotated(step.choices, run.trace.searchResults, { citations: run.prepared.flags.citations === true });
  const responseText = responseTextOf(choices);
  if (step.broken) {
    const error = new ApiError('upstream_error', `The provider ${step.broken.provider} broke off the stream (${step.broken.kind}).`);
    const partial = completionResult(run, { model: step.model, choices, statusCode: statusOfError(step.broken), error: step.broken.message });
    return { ended: { failure: error.toFailure(), partial }, responseText };
  }
  const afterFailure = await runAfterModel(run, services.plugins, { calls: plan.after, answer: responseText });
  const result = completionResult(run, { model: step.model, choices, statusCode: afterFailure?.status ?? 200 });
  if (afterFailure) return { ended: { failure: afterFailure.toFailure(), partial: result }, responseText };
  return { ended: { result }, responseText };
}
