import { canonicalPluginId, descriptorOf } from '../catalog';
import type { PluginId } from '../types';
import { audioFileLabel, isAudioFile } from './audio-files';
import { cue, fragments, type PluginModel } from './cue';
import { IMAGE_GENERATION_MODEL } from './lexicon/image-generation';
import { SOCIAL_POST_MODEL } from './lexicon/social-post';
import { SPACE_SEARCH_MODEL } from './lexicon/space-search';
import { TRANSCRIBE_AUDIO_MODEL } from './lexicon/transcribe-audio';
import { webSearchModel } from './lexicon/web-search';
import { normaliseText } from './normalise-text';
import { type CueScore, scoreCues, TextMatcher } from './score';
import type { Classification, Selection, SelectionInput, SelectionOptions } from './types';

/** Chosen at this score and above (a logit of 0). */
export const SELECTION_THRESHOLD = 0.5;

/**
 * An attached audio file all but settles it: little else in a request needs the audio read. It is
 * evidence from `files`, not the text, so its pattern matches nothing and it is added by hand.
 */
const ATTACHED_AUDIO = cue(fragments('$^'), 7, { group: 'attached', reason: 'an audio file is attached' });

type Classified = 'web-search' | 'space-search' | 'image-generation-generic' | 'transcribe-audio' | 'social-post';

const CLASSIFIED: readonly [Classified, (now: Date) => PluginModel][] = [
  ['web-search', webSearchModel],
  ['image-generation-generic', () => IMAGE_GENERATION_MODEL],
  ['social-post', () => SOCIAL_POST_MODEL],
  ['space-search', () => SPACE_SEARCH_MODEL],
];

/** Scores of the plugins that can be candidates (the others are not scored at all). */
function scoreAll(text: string, input: SelectionInput, { now, candidates }: { now: Date; candidates: ReadonlySet<PluginId> }): Map<Classified, CueScore> {
  const matcher = new TextMatcher(text);
  const scores = new Map<Classified, CueScore>();
  for (const [id, model] of CLASSIFIED) if (allowedId(id, candidates) !== null) scores.set(id, scoreCues(matcher, model(now), null));
  if (candidates.has('transcribe-audio')) {
    const audio = input.files.find(isAudioFile);
    const attached = audio === undefined ? null : { cue: ATTACHED_AUDIO, matched: audioFileLabel(audio) };
    scores.set('transcribe-audio', scoreCues(matcher, TRANSCRIBE_AUDIO_MODEL, attached));
  }
  return scores;
}

/** "asks about current events ('latest', 'today')": the strongest cue's words, and the words that matched. */
function reasonFor(score: CueScore): string {
  const [top] = score.evidence;
  if (!top) return 'no cue';
  const quoted = [...new Set(score.evidence.slice(0, 3).map((e) => `'${e.matched}'`))].join(', ');
  return `${top.cue.reason} (${quoted})`;
}

/** The id under which a classified plugin may run: its own, or an alias of it (space-search's legacy id). */
function allowedId(plugin: Classified, allowed: ReadonlySet<PluginId>): PluginId | null {
  if (allowed.has(plugin)) return plugin;
  return descriptorOf(plugin).aliases.find((alias) => allowed.has(alias)) ?? null;
}

/**
 * How the content scores each candidate plugin: hand-written cues per plugin with negation handling, no
 * network, no model. Every candidate the classifier knows is in the answer, wanted or not, the best
 * first: auto_tools reports why it skipped a plugin, and warns when the content wanted one that cannot run.
 */
export function classifyPlugins(input: SelectionInput, candidates: readonly PluginId[], options: SelectionOptions = {}): Classification[] {
  const candidateSet = new Set(candidates);
  const text = normaliseText(input.text);
  const classified: Classification[] = [];
  for (const [plugin, score] of scoreAll(text, input, { now: options.now ?? new Date(), candidates: candidateSet })) {
    const id = allowedId(plugin, candidateSet);
    if (id === null) continue;
    const probability = 1 / (1 + Math.exp(-score.logit));
    const wanted = !score.vetoed && probability >= SELECTION_THRESHOLD;
    classified.push({ plugin: id, score: Math.round(probability * 1000) / 1000, reason: reasonFor(score), wanted, declined: score.vetoed });
  }
  return classified.sort((a, b) => b.score - a.score);
}

/** Whether a wanted plugin can be chosen: a Space without files has nothing to search, whatever the text says. */
export function selectable(classification: Classification, input: Pick<SelectionInput, 'spaceHasFiles'>): boolean {
  const searchesFiles = canonicalPluginId(classification.plugin) === 'space-search';
  return classification.wanted && (!searchesFiles || input.spaceHasFiles);
}

/**
 * Picks the plugins a request needs from its content, before any model call (auto_tools for models
 * without function calling). Only plugins in `allowed` can be chosen; the best first.
 */
export function selectPlugins(input: SelectionInput, allowed: readonly PluginId[], options: SelectionOptions = {}): Selection[] {
  return classifyPlugins(input, allowed, options)
    .filter((classification) => selectable(classification, input))
    .map(({ plugin, score, reason }) => ({ plugin, score, reason }));
}
