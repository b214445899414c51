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
import type { Selection, SelectionInput, SelectionOptions } from './types';

/** Chosen at this score and above (a logit of 0). */
const THRESHOLD = 0.5;

/**
 * An attached audio file all but settles it: little else in a request needs the audio read. It is
 * evidence from `files`, not the text, so its pattern matches nothing and it is added by hand.
 */
const ATTACHED_AUDIO = cue(fragments('$^'), 7, { group: 'attached', reason: 'an audio file is attached' });

type Classified = 'web-search' | 'space-search' | 'image-generation-generic' | 'transcribe-audio' | 'social-post';

function scoreAll(text: string, input: SelectionInput, now: Date): Map<Classified, CueScore> {
  const audio = input.files.find(isAudioFile);
  const models: [Classified, PluginModel][] = [
    ['web-search', webSearchModel(now)],
    ['image-generation-generic', IMAGE_GENERATION_MODEL],
    ['social-post', SOCIAL_POST_MODEL],
  ];
  // A Space without files has nothing to search, whatever the text says.
  if (input.spaceHasFiles) models.push(['space-search', SPACE_SEARCH_MODEL]);
  const matcher = new TextMatcher(text);
  const scores = new Map<Classified, CueScore>(models.map(([id, model]) => [id, scoreCues(matcher, model, null)]));
  const attached = audio === undefined ? null : { cue: ATTACHED_AUDIO, matched: audioFileLabel(audio) };
  scores.set('transcribe-audio', scoreCues(matcher, TRANSCRIBE_AUDIO_MODEL, attached));
  return scores;
}

/** "asks about current events ('latest', 'today')": the strongest cue's words, and the words that matched. */
function reasonFor(score: CueScore): string {
  const [top] = score.evidence;
  if (!top) return 'no cue';
  const quoted = [...new Set(score.evidence.slice(0, 3).map((e) => `'${e.matched}'`))].join(', ');
  return `${top.cue.reason} (${quoted})`;
}

/** The id under which a classified plugin may run: space-search also answers to its legacy id. */
function allowedId(plugin: Classified, allowed: ReadonlySet<PluginId>): PluginId | null {
  if (allowed.has(plugin)) return plugin;
  if (plugin === 'space-search' && allowed.has('legacy-file-search')) return 'legacy-file-search';
  return null;
}

/**
 * Picks the plugins a request needs from its content, before any model call (auto_tools for models
 * without function calling): hand-written cues per plugin with negation handling, no network, no
 * model. Only plugins in `allowed` can be chosen; the best first.
 */
export function selectPlugins(input: SelectionInput, allowed: readonly PluginId[], options: SelectionOptions = {}): Selection[] {
  const allowedSet = new Set(allowed);
  const text = normaliseText(input.text);
  const selections: Selection[] = [];
  for (const [plugin, score] of scoreAll(text, input, options.now ?? new Date())) {
    const id = allowedId(plugin, allowedSet);
    const probability = 1 / (1 + Math.exp(-score.logit));
    if (id === null || score.vetoed || probability < THRESHOLD) continue;
    selections.push({ plugin: id, score: Math.round(probability * 1000) / 1000, reason: reasonFor(score) });
  }
  return selections.sort((a, b) => b.score - a.score);
}
