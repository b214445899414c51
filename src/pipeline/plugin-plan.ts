import { ApiError } from '../errors/api-error';
import { missingSocialAccount } from '../plugins/social-post/settings';
import type { PluginId } from '../plugins/types';
import type { AutoToolsSettings } from '../schemas/plugin-settings';
import type { PluginCall } from './plugin-steps';
import type { RunContext } from './run-context';
import { readOnce } from './space-memo';

/** Picks plugins from a request's content (the pre-selection classifier). */
export type PluginSelector = (
  input: { text: string; files: string[]; images: string[]; spaceHasFiles: boolean },
  allowed: readonly PluginId[],
) => { plugin: PluginId; score: number; reason: string }[];

/** Which plugins a request runs, and when. */
export interface PluginPlan {
  /** Run before the model; their output goes into its context. */
  before: PluginCall[];
  /** Run on the answer (social-post). */
  after: PluginCall[];
  /** Offered to the model as function tools (auto_tools' tool loop). */
  offered: PluginId[];
}

/** The plugins auto_tools may use in this Space and deployment, besides those the request named. */
function allowedAutomatically(ctx: RunContext, settings: AutoToolsSettings, named: ReadonlySet<PluginId>): PluginId[] {
  const social = ctx.space.settings.plugins?.['social-post'];
  return settings.plugins.filter((id) => {
    if (named.has(id) || id === 'legacy-file-search' || !ctx.plugins.available(id)) return false;
    return id !== 'social-post' || social?.allow_auto_tools === true;
  });
}

/** Whether auto_tools runs as a tool loop (the model calls plugins) rather than by pre-selection. */
function usesToolLoop(ctx: RunContext, settings: AutoToolsSettings): boolean {
  const chat = ctx.prepared.chat;
  if (chat.tool_choice === 'none' || (chat.n ?? 1) > 1) return false;
  const canCall = ctx.plan.first.supports.functions === true;
  if (settings.mode === 'tool_loop' && !canCall) ctx.trace.warnings.push('auto_tools: the model cannot call functions, so plugins were pre-selected instead of offered as tools.');
  return settings.mode !== 'preselect' && canCall;
}

function callsFor(ctx: RunContext, ids: { id: PluginId; trigger: PluginCall['trigger']; reason: string }[]): PluginPlan {
  const before: PluginCall[] = [];
  const after: PluginCall[] = [];
  for (const { id, trigger, reason } of ids) {
    const call: PluginCall = { id, trigger, reason, args: null };
    (ctx.plugins.get(id)?.phase === 'after_model' ? after : before).push(call);
  }
  return { before, after, offered: [] };
}

/**
 * The request's plugins: those it (or its assistant) named, then, with `auto_tools`, either plugins
 * offered to the model as tools or plugins pre-selected from the request's content. A named plugin
 * whose effect is the point of the request (social-post) and that cannot run here fails the request
 * at once, before anything is spent.
 */
export async function planPlugins(ctx: RunContext, { selector, spaceHasFiles }: { selector: PluginSelector; spaceHasFiles: (appId: string) => Promise<boolean> }): Promise<PluginPlan> {
  const named = ctx.prepared.plugins;
  for (const { id } of named) {
    if (ctx.plugins.get(id)?.phase === 'after_model' && !ctx.plugins.available(id)) {
      const reason = ctx.plugins.get(id)?.availability();
      throw new ApiError('plugin_unavailable', `The plugin ${id} cannot run here: ${reason && !reason.available ? reason.reason : 'not configured'}.`, 'plugins');
    }
    const missing = id === 'social-post' ? missingSocialAccount(ctx.space.settings.plugins?.['social-post']) : null;
    if (missing) throw new ApiError('plugin_unavailable', `The plugin social-post cannot run here: ${missing}.`, 'plugins');
  }
  const plan = callsFor(ctx, named.map(({ id, trigger }) => ({ id, trigger, reason: trigger === 'assistant' ? "named by the request's assistant" : 'named in the request' })));
  if (ctx.prepared.flags.auto_tools !== true) return plan;
  const settings = ctx.space.autoTools;
  const allowed = allowedAutomatically(ctx, settings, new Set(named.map(({ id }) => id)));
  if (allowed.length === 0) return plan;
  if (usesToolLoop(ctx, settings)) return { ...plan, offered: allowed };
  const selected = selector(
    { text: ctx.prepared.query, files: ctx.job.request.files ?? [], images: ctx.job.request.images ?? [], spaceHasFiles: await readOnce(ctx.space, 'searchable-files', () => spaceHasFiles(ctx.space.dataSpaceId)) },
    allowed,
  );
  const extra = callsFor(ctx, selected.map(({ plugin, reason }) => ({ id: plugin, trigger: 'preselected' as const, reason })));
  return { before: [...plan.before, ...extra.before], after: [...plan.after, ...extra.after], offered: [] };
}
