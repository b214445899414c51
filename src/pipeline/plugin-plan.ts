import { ApiError } from '../errors/api-error';
import { descriptorOf } from '../plugins/catalog';
import type { PluginId } from '../plugins/types';
import { bareText, sentence } from './plugin-notes';
import type { PluginCall, PluginSteps } from './plugin-steps';
import type { Run } from './run';
import { planAutoTools, type AutoToolsDeps } from './auto-tools-plan';

export type { PluginSelector } from './auto-tools-plan';

/** Which plugins a request runs, and when. */
export interface PluginPlan {
  /** Run before the model; their output goes into its context. */
  before: PluginCall[];
  /** Run on the answer (social-post). */
  after: PluginCall[];
  /** Offered to the model as function tools (auto_tools' tool loop). */
  offered: PluginId[];
}

function callsFor(plugins: PluginSteps, ids: { id: PluginId; trigger: PluginCall['trigger']; reason: string }[]): PluginPlan {
  const before: PluginCall[] = [];
  const after: PluginCall[] = [];
  for (const { id, trigger, reason } of ids) {
    const call: PluginCall = { id, trigger, reason, args: null };
    (plugins.get(id)?.phase === 'after_model' ? after : before).push(call);
  }
  return { before, after, offered: [] };
}

/**
 * The request's plugins: those it (or its assistant) named, then, with `auto_tools`, either plugins
 * offered to the model as tools or plugins pre-selected from the request's content. A named plugin
 * whose effect is the point of the request (one acting on the answer) and that cannot run here, or whose
 * Space settings leave it nothing to act with (its descriptor's `settingsProblem`), fails the request at
 * once, before anything is spent.
 */
export async function planPlugins(run: Run, plugins: PluginSteps, deps: AutoToolsDeps): Promise<PluginPlan> {
  const named = run.prepared.plugins;
  for (const { id } of named) {
    if (plugins.get(id)?.phase === 'after_model' && !plugins.available(id)) {
      const reason = plugins.get(id)?.availability();
      throw new ApiError(
        'plugin_unavailable',
        sentence(`The plugin ${id} cannot run here: ${reason && !reason.available ? bareText(id, reason.reason) : 'not configured'}`),
        'plugins',
      );
    }
    const missing = descriptorOf(id).settingsProblem?.(run.space.settings.plugins?.[id]) ?? null;
    if (missing) throw new ApiError('plugin_unavailable', sentence(`The plugin ${id} cannot run here: ${bareText(id, missing)}`), 'plugins');
  }
  const plan = callsFor(
    plugins,
    named.map(({ id, trigger }) => ({ id, trigger, reason: trigger === 'assistant' ? "named by the request's assistant" : 'named in the request' })),
  );
  if (run.prepared.flags.auto_tools !== true) return plan;
  const { offered, preselected } = await planAutoTools(run, { plugins, deps, named: new Set(named.map(({ id }) => id)) });
  if (offered.length > 0) return { ...plan, offered };
  if (preselected.length === 0) return plan;
  const extra = callsFor(
    plugins,
    preselected.map(({ id, reason }) => ({ id, trigger: 'preselected' as const, reason })),
  );
  return { before: [...plan.before, ...extra.before], after: [...plan.after, ...extra.after], offered: [] };
}
