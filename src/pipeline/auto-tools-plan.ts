import type { AutoToolsReport, AutoToolsSkipReason } from '../domain/completion';
import { descriptorOf, isPluginAlias } from '../plugins/catalog';
import { SELECTION_THRESHOLD, type Classification, type SelectionInput } from '../plugins/pre-selection';
import type { NotReady, PluginId, SpaceFacts } from '../plugins/types';
import type { AutoToolsSettings } from '../store/space-context';
import { bareText, sentence } from './plugin-notes';
import type { PluginSteps } from './plugin-steps';
import type { Run } from './run';
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

/** The Space's auto_tools plugins the request did not name (aliases aside): those that may run, and those that cannot, with why. */
function screen(
  { space, plugins }: { space: Run['space']; plugins: PluginSteps },
  settings: AutoToolsSettings,
  named: ReadonlySet<PluginId>,
): { considered: PluginId[]; allowed: PluginId[]; skipped: Skipped[] } {
  const considered = [...new Set(settings.plugins)].filter((id) => !named.has(id) && !isPluginAlias(id));
  const allowed: PluginId[] = [];
  const skipped: Skipped[] = [];
  for (const id of considered) {
    const refusal = descriptorOf(id).autoToolsRefusal?.(space.settings.plugins?.[id]) ?? null;
    if (!plugins.available(id)) {
      const availability = plugins.get(id)?.availability();
      const why = availability && !availability.available ? bareText(id, availability.reason) : 'not built into this service';
      skipped.push(skip(id, 'no_backend', `no backend is configured (${why})`));
    } else if (refusal !== null) {
      skipped.push(skip(id, 'not_allowed', refusal));
    } else {
      allowed.push(id);
    }
  }
  return { considered, allowed, skipped };
}

/** Whether auto_tools runs as a tool loop (the model calls plugins) rather than by pre-selection. */
function usesToolLoop(run: Run, settings: AutoToolsSettings): boolean {
  const chat = run.prepared.chat;
  if (chat.tool_choice === 'none' || (chat.n ?? 1) > 1) return false;
  const canCall = run.plan.first.supports.functions === true;
  if (settings.mode === 'tool_loop' && !canCall)
    run.trace.warnings.push('auto_tools: the model cannot call functions, so plugins were pre-selected instead of offered as tools.');
  return settings.mode !== 'preselect' && canCall;
}

function contentOf(run: Run, spaceHasFiles: boolean): SelectionInput {
  return { text: run.prepared.query, files: run.prepared.files, images: run.prepared.images, spaceHasFiles };
}

/** Each skip gets the classifier's score; one the content wanted but that cannot run here becomes a warning. */
function judgeSkips(run: Run, skipped: Skipped[], classified: readonly Classification[]): void {
  for (const entry of skipped) {
    const judged = classified.find((c) => c.plugin === entry.id);
    if (!judged) continue;
    entry.score = judged.score;
    if (judged.wanted && CANNOT_RUN.has(entry.reason)) {
      run.trace.warnings.push(sentence(`auto_tools: ${entry.id} was skipped though the request seems to need it (${judged.reason}): ${entry.detail}`));
    }
  }
}

/** Why the classifier left out a plugin that could have run (`unready`: it had nothing to do in the Space). */
function notPicked(id: PluginId, judged: Classification | undefined, unready: NotReady | undefined): Skipped {
  const score = judged?.score ?? 0;
  if (unready) return { ...skip(id, unready.reason, unready.detail), score };
  if (judged?.declined) return { ...skip(id, 'declined', 'the request asked not to use it'), score };
  return { ...skip(id, 'below_threshold', `the classifier scored it ${score}, below ${SELECTION_THRESHOLD}`), score };
}

/** The Space's facts, each read once per snapshot and only when a plugin's readiness asks. */
class AskedSpaceFacts implements SpaceFacts {
  private hasFiles: boolean | undefined;

  constructor(
    private readonly space: Run['space'],
    private readonly deps: AutoToolsDeps,
  ) {}

  async hasSearchableFiles(): Promise<boolean> {
    const { space } = this;
    this.hasFiles = await readOnce(space, 'searchable-files', () => this.deps.spaceHasFiles(space.dataSpaceId));
    return this.hasFiles;
  }

  /** For the classifier's input: true only when asked and the Space has files. */
  knownToHaveFiles(): boolean {
    return this.hasFiles === true;
  }
}

/** The plugins that have nothing to do in the Space, with why (their descriptors' readiness, asked all at once). */
async function unreadyOf(ids: readonly PluginId[], facts: SpaceFacts): Promise<Map<PluginId, NotReady>> {
  const answers = await Promise.all(ids.map(async (id) => [id, (await descriptorOf(id).readiness?.(facts)) ?? null] as const));
  return new Map(answers.filter((answer): answer is readonly [PluginId, NotReady] => answer[1] !== null));
}

/**
 * auto_tools for one request: the Space's auto_tools plugins, screened (no backend, not allowed), then
 * offered to the model as tools or pre-selected from the content. What it considered, picked and
 * skipped (with why) goes to `metadata.extra.auto_tools`. Called only when auto_tools is on.
 */
export async function planAutoTools(
  run: Run,
  { plugins, deps, named }: { plugins: PluginSteps; deps: AutoToolsDeps; named: ReadonlySet<PluginId> },
): Promise<AutoToolsChoice> {
  const settings = run.space.autoTools;
  const { considered, allowed, skipped } = screen({ space: run.space, plugins }, settings, named);
  const report: AutoToolsReport = { mode: null, considered, picked: [], skipped };
  run.trace.autoTools = report;
  const cannotRun = skipped.map((s) => s.id);
  if (allowed.length === 0 || usesToolLoop(run, settings)) {
    // Whether the content wanted a plugin that cannot run: asked of the classifier only when one cannot.
    if (cannotRun.length > 0) judgeSkips(run, skipped, deps.selector(contentOf(run, false), cannotRun));
    if (allowed.length === 0) return { offered: [], preselected: [] };
    report.mode = 'tool_loop';
    report.picked = allowed.map((id) => ({ id, score: null }));
    return { offered: allowed, preselected: [] };
  }
  report.mode = 'preselect';
  const facts = new AskedSpaceFacts(run.space, deps);
  const unready = await unreadyOf(allowed, facts);
  const input = contentOf(run, facts.knownToHaveFiles());
  const classified = deps.selector(input, [...allowed, ...cannotRun]);
  const picked = classified.filter((c) => allowed.includes(c.plugin) && c.wanted && !unready.has(c.plugin));
  report.picked = picked.map((c) => ({ id: c.plugin, score: c.score }));
  const left = allowed
    .filter((id) => !picked.some((c) => c.plugin === id))
    .map((id) =>
      notPicked(
        id,
        classified.find((c) => c.plugin === id),
        unready.get(id),
      ),
    );
  skipped.push(...left);
  judgeSkips(run, skipped, classified);
  return { offered: [], preselected: picked.map((c) => ({ id: c.plugin, reason: c.reason })) };
}
