import type { AutoToolsReport, AutoToolsSkipReason } from '../domain/completion';
import { selectable, SELECTION_THRESHOLD, type Classification, type SelectionInput } from '../plugins/selection';
import type { PluginId } from '../plugins/types';
import type { AutoToolsSettings } from '../schemas/plugin-settings';
import { bareText, sentence } from './plugin-notes';
import type { RunContext } from './run-context';
import { readOnce } from './space-memo';

/** Scores candidate plugins from a request's content (the pre-selection classifier), every candidate it knows, best first. */
export type PluginSelector = (input: SelectionInput, candidates: readonly PluginId[]) => Classification[];

export interface AutoToolsDeps {
  selector: PluginSelector;
  spaceHasFiles: (appId: string) => Promise<boolean>;
}

/** What auto_tools adds to the request's plugins: tools offered to the model, or plugins run before it. */
export interface AutoToolsChoice {
  offered: PluginId[];
  preselected: { id: PluginId; reason: string }[];
}

type Skipped = AutoToolsReport['skipped'][number];

/** Skips whose plugin cannot run here at all: a classifier that wanted one is worth a warning. */
const CANNOT_RUN: ReadonlySet<AutoToolsSkipReason> = new Set(['no_backend', 'not_allowed', 'no_searchable_files']);

const skip = (id: PluginId, reason: AutoToolsSkipReason, detail: string): Skipped => ({ id, reason, detail, score: null });

/** The Space's auto_tools plugins the request did not name: those that may run, and those that cannot, with why. */
function screen(ctx: RunContext, settings: AutoToolsSettings, named: ReadonlySet<PluginId>): { considered: PluginId[]; allowed: PluginId[]; skipped: Skipped[] } {
  const social = ctx.space.settings.plugins?.['social-post'];
  const considered = [...new Set(settings.plugins)].filter((id) => !named.has(id) && id !== 'legacy-file-search');
  const allowed: PluginId[] = [];
  const skipped: Skipped[] = [];
  for (const id of considered) {
    if (!ctx.plugins.available(id)) {
      const availability = ctx.plugins.get(id)?.availability();
      const why = availability && !availability.available ? bareText(id, availability.reason) : 'not built into this service';
      skipped.push(skip(id, 'no_backend', `no backend is configured (${why})`));
    } else if (id === 'social-post' && social?.allow_auto_tools !== true) {
      skipped.push(skip(id, 'not_allowed', "the Space's social-post settings do not set allow_auto_tools"));
    } else {
      allowed.push(id);
    }
  }
  return { considered, allowed, skipped };
}

/** Whether auto_tools runs as a tool loop (the model calls plugins) rather than by pre-selection. */
function usesToolLoop(ctx: RunContext, settings: AutoToolsSettings): boolean {
  const chat = ctx.prepared.chat;
  if (chat.tool_choice === 'none' || (chat.n ?? 1) > 1) return false;
  const canCall = ctx.plan.first.supports.functions === true;
  if (settings.mode === 'tool_loop' && !canCall) ctx.trace.warnings.push('auto_tools: the model cannot call functions, so plugins were pre-selected instead of offered as tools.');
  return settings.mode !== 'preselect' && canCall;
}

function contentOf(ctx: RunContext, spaceHasFiles: boolean): SelectionInput {
  return { text: ctx.prepared.query, files: ctx.job.request.files ?? [], images: ctx.job.request.images ?? [], spaceHasFiles };
}

/** Each skip gets the classifier's score; one the content wanted but that cannot run here becomes a warning. */
function judgeSkips(ctx: RunContext, skipped: Skipped[], classified: readonly Classification[]): void {
  for (const entry of skipped) {
    const judged = classified.find((c) => c.plugin === entry.id);
    if (!judged) continue;
    entry.score = judged.score;
    if (judged.wanted && CANNOT_RUN.has(entry.reason)) {
      ctx.trace.warnings.push(sentence(`auto_tools: ${entry.id} was skipped though the request seems to need it (${judged.reason}): ${entry.detail}`));
    }
  }
}

/** Why the classifier left out a plugin that could have run. */
function notPicked(id: PluginId, judged: Classification | undefined, input: SelectionInput): Skipped {
  const score = judged?.score ?? 0;
  if (id === 'space-search' && !input.spaceHasFiles) return { ...skip(id, 'no_searchable_files', 'the Space holds no searchable files'), score };
  if (judged?.declined) return { ...skip(id, 'declined', 'the request asked not to use it'), score };
  return { ...skip(id, 'below_threshold', `the classifier scored it ${score}, below ${SELECTION_THRESHOLD}`), score };
}

/**
 * auto_tools for one request: the Space's auto_tools plugins, screened (no backend, not allowed), then
 * offered to the model as tools or pre-selected from the content. What it considered, picked and
 * skipped (with why) goes to `metadata.extra.auto_tools`. Called only when auto_tools is on.
 */
export async function planAutoTools(ctx: RunContext, deps: AutoToolsDeps, named: ReadonlySet<PluginId>): Promise<AutoToolsChoice> {
  const settings = ctx.space.autoTools;
  const { considered, allowed, skipped } = screen(ctx, settings, named);
  const report: AutoToolsReport = { mode: null, considered, picked: [], skipped };
  ctx.trace.autoTools = report;
  const cannotRun = skipped.map((s) => s.id);
  if (allowed.length === 0 || usesToolLoop(ctx, settings)) {
    // Whether the content wanted a plugin that cannot run: asked of the classifier only when one cannot.
    if (cannotRun.length > 0) judgeSkips(ctx, skipped, deps.selector(contentOf(ctx, false), cannotRun));
    if (allowed.length === 0) return { offered: [], preselected: [] };
    report.mode = 'tool_loop';
    report.picked = allowed.map((id) => ({ id, score: null }));
    return { offered: allowed, preselected: [] };
  }
  report.mode = 'preselect';
  const searchesFiles = allowed.includes('space-search');
  const hasFiles = searchesFiles && (await readOnce(ctx.space, 'searchable-files', () => deps.spaceHasFiles(ctx.space.dataSpaceId)));
  const input = contentOf(ctx, hasFiles);
  const classified = deps.selector(input, [...allowed, ...cannotRun]);
  const picked = classified.filter((c) => allowed.includes(c.plugin) && selectable(c, input));
  report.picked = picked.map((c) => ({ id: c.plugin, score: c.score }));
  const left = allowed.filter((id) => !picked.some((c) => c.plugin === id)).map((id) => notPicked(id, classified.find((c) => c.plugin === id), input));
  skipped.push(...left);
  judgeSkips(ctx, skipped, classified);
  return { offered: [], preselected: picked.map((c) => ({ id: c.plugin, reason: c.reason })) };
}
