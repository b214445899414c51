import { z } from 'zod';
import type { ChatChoice, ChatMessage, ToolCall, ToolDefinition } from '../domain/chat';
import type { RoutableModel } from '../domain/routable-model';
import { toolNameOf } from '../plugins/catalog';
import type { PluginId } from '../plugins/types';
import { countTokens } from '../text/token-count';
import { modelStep, modelStepHoldingToolCalls, releaseHeld, type ModelStepResult } from './model-step';
import { toolResultContent } from './plugin-context';
import { MODEL_CALL_RESERVE_MS, type PluginCall, type PluginSteps } from './plugin-steps';
import type { Run } from './run';
import type { StepServices } from './step-services';

/**
 * Plugin calls run for one model turn at most. The step limit, deadline and `max_cost` are checked
 * between turns only, so without this one turn (steered, maybe, by injected text) could ask for
 * dozens of images or searches at once and spend far past `max_cost` before anything stops it.
 */
export const MAX_PLUGIN_CALLS_PER_STEP = 5;

const TOO_MANY_CALLS = JSON.stringify({ error: `too many tool calls at once: at most ${MAX_PLUGIN_CALLS_PER_STEP} run per turn; this one was not run` });

export interface OfferedTools {
  definitions: ToolDefinition[];
  /** Function name → plugin. */
  byName: Map<string, PluginId>;
}

function offeredTools({ prepared }: Run, plugins: PluginSteps, offered: PluginId[]): OfferedTools {
  const callerNames = new Set((prepared.chat.tools ?? []).map((tool) => tool.function.name));
  const definitions: ToolDefinition[] = [];
  const byName = new Map<string, PluginId>();
  for (const id of offered) {
    const plugin = plugins.get(id);
    const name = toolNameOf(id);
    // The caller's own tool of the same name wins: its calls must reach the caller.
    if (!plugin || !name || callerNames.has(name)) continue;
    definitions.push({
      type: 'function',
      function: { name, description: plugin.description, parameters: z.toJSONSchema(plugin.toolParameters) as Record<string, unknown> },
    });
    byName.set(name, id);
  }
  return { definitions, byName };
}

function parsedArgs(plugins: PluginSteps, id: PluginId, call: ToolCall): Record<string, unknown> | null {
  try {
    const parsed = plugins.get(id)?.toolParameters.safeParse(JSON.parse(call.function.arguments));
    return parsed?.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Whether another round of plugin calls fits the request's step limit, deadline and `max_cost`. */
function mayOfferTools(run: Run, step: number): boolean {
  const maxCost = run.prepared.policies.max_cost;
  if (step >= run.space.autoTools.max_steps) return false;
  if (Date.now() + MODEL_CALL_RESERVE_MS >= run.job.deadline) return false;
  return maxCost === null || run.trace.costs().total_tokens < maxCost;
}

/** The answer as the client gets it: calls to plugins removed (they were the worker's to run). */
function withoutPluginCalls(choices: ChatChoice[], byName: Map<string, PluginId>): ChatChoice[] {
  return choices.map((choice) => {
    const calls = choice.message.tool_calls?.filter((call) => !byName.has(call.function.name));
    if (calls === undefined || calls.length === choice.message.tool_calls?.length) return choice;
    const message = calls.length > 0 ? { ...choice.message, tool_calls: calls } : { role: 'assistant' as const, content: choice.message.content ?? '' };
    return { ...choice, message, finish_reason: calls.length > 0 ? choice.finish_reason : 'stop' };
  });
}

/** The model that answered the last step first, then the others in their order (walked lazily, as the plan's). */
function answeringFirst(model: RoutableModel, attempts: Iterable<RoutableModel>): Iterable<RoutableModel> {
  return {
    *[Symbol.iterator]() {
      yield model;
      for (const other of attempts) if (other.id !== model.id) yield other;
    },
  };
}

/**
 * auto_tools' tool loop: the plugins on offer are function tools next to the caller's own. When the
 * model calls only plugins, the worker runs them and asks again; calls to the caller's tools end the
 * loop and go back to the caller as usual. Bounded by the Space's step limit, the request's deadline
 * and `policies.max_cost`: past them the model is asked once more without the plugins. Plugins that
 * act on the answer (social-post) are noted when called and run once the answer is final.
 */
export async function answerWithTools(
  run: Run,
  services: StepServices,
  { messages, offered, after }: { messages: ChatMessage[]; offered: PluginId[]; after: PluginCall[] },
): Promise<ModelStepResult> {
  const tools = offeredTools(run, services.plugins, offered);
  const callerTools = run.prepared.chat.tools ?? [];
  let conversation = messages;
  let attempts = run.plan.choices;
  for (let step = 1; ; step += 1) {
    const offering = tools.definitions.length > 0 && mayOfferTools(run, step);
    const sent = conversation;
    const input = {
      messages: conversation,
      tools: offering ? [...callerTools, ...tools.definitions] : run.prepared.chat.tools,
      toolChoice: run.prepared.chat.tool_choice,
      attempts,
      promptTokens: () => countTokens(JSON.stringify(sent)),
    };
    // A turn that offers plugins holds a stream's tool calls back: a call to a plugin is not the client's.
    const result = offering ? await modelStepHoldingToolCalls(run, services, input) : await modelStep(run, services, input);
    if (result.broken) return result;
    const calls = result.choices[0]?.message.tool_calls ?? [];
    const pluginCalls = calls.filter((call) => tools.byName.has(call.function.name));
    if (!offering || pluginCalls.length === 0 || pluginCalls.length < calls.length) {
      if (pluginCalls.length > 0)
        run.trace.warnings.push(
          "auto_tools: the model called plugins and the caller's tools at once; the caller's calls were returned and the plugin calls dropped.",
        );
      const choices = withoutPluginCalls(result.choices, tools.byName);
      if (offering) await releaseHeld(run, { model: result.model, choices });
      return { ...result, choices };
    }
    attempts = answeringFirst(result.model, attempts);
    conversation = [
      ...conversation,
      ...(await runToolCalls(run, services.plugins, { calls: pluginCalls, tools, after, assistant: result.choices[0]?.message.content ?? null })),
    ];
  }
}

/** Runs the plugins the model called (at most MAX_PLUGIN_CALLS_PER_STEP) and gives back the turn to add: the model's calls and each tool's answer. */
export async function runToolCalls(
  run: Run,
  plugins: PluginSteps,
  options: { calls: ToolCall[]; tools: OfferedTools; after: PluginCall[]; assistant: string | null },
): Promise<ChatMessage[]> {
  const { calls, tools, after } = options;
  const pending: { call: ToolCall; plugin: PluginCall }[] = [];
  const answers = new Map<string, string>();
  for (const call of calls) {
    const id = tools.byName.get(call.function.name) as PluginId;
    const args = parsedArgs(plugins, id, call);
    const plugin: PluginCall = { id, trigger: 'tool_call', reason: `the model called ${call.function.name}`, args };
    if (args === null) answers.set(call.id, JSON.stringify({ error: "the arguments do not match the tool's parameters" }));
    else if (pending.length >= MAX_PLUGIN_CALLS_PER_STEP) answers.set(call.id, TOO_MANY_CALLS);
    else if (plugins.get(id)?.phase === 'after_model') {
      if (!after.some((known) => known.id === id)) after.push(plugin);
      answers.set(call.id, JSON.stringify({ status: 'scheduled', note: 'This runs on your final answer once you give it.' }));
    } else pending.push({ call, plugin });
  }
  const runs = await plugins.runAll(
    run,
    pending.map(({ plugin }) => plugin),
    pluginInput(run.prepared),
  );
  pending.forEach(({ call }, i) => answers.set(call.id, toolResultContent(runs[i] as (typeof runs)[number])));
  return [
    { role: 'assistant', content: options.assistant, tool_calls: calls },
    ...calls.map((call): ChatMessage => ({ role: 'tool', tool_call_id: call.id, content: answers.get(call.id) ?? '' })),
  ];
}

/** What every plugin of a request reads besides its own arguments. */
export function pluginInput(prepared: Run['prepared']): { messages: ChatMessage[]; query: string; files: string[]; images: string[] } {
  return { messages: prepared.chat.messages, query: prepared.query, files: prepared.files, images: prepared.images };
}
