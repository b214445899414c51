/**
 * A cue: a pattern in the request's text that is evidence for (positive weight) or against (negative
 * weight) one plugin. A plugin's logit is its bias plus, per group, the weight of the strongest cue of
 * that group that matched, so synonyms of one idea ("latest", "newest", "most recent") count once.
 */
export interface Cue {
  /** Global and unicode (see `words`), matched against the normalised text. */
  readonly pattern: RegExp;
  readonly weight: number;
  readonly group: string;
  /** What the match says about the request, for the reason: "asks about current events". */
  readonly reason: string;
  /**
   * An explicit request to use the plugin ("search the web", "post it on Mastodon"): negated
   * ("don't search the web") it vetoes the plugin whatever else the text says.
   */
  readonly explicit?: boolean;
  /** Needed somewhere in the text too (e.g. a social network beside a publish verb). */
  readonly with?: RegExp;
}

/** The plugin's cues and its bias (the logit of a text that matches none). */
export interface PluginModel {
  readonly bias: number;
  readonly cues: readonly Cue[];
}

/** A letter or digit: JavaScript's `\b` knows only ASCII, and the lexicons hold "é", "ü" and "ñ". */
const WORD_CHAR = '[\\p{L}\\p{N}_]';

/**
 * A regex of whole-word alternatives (each itself a regex over lower-case text with single spaces).
 * The ASCII `\b` goes first because V8 scans for it fast; the lookbehind then rejects a start inside
 * a word after an accented letter ("dit" in "crédit"). Alternatives that begin with a non-ASCII
 * letter ("últimas") cannot follow a `\b` and get the lookbehind alone.
 */
export function words(...alternatives: string[]): RegExp {
  const nonAscii = (a: string): boolean => /^[^ -~]/u.test(a);
  const asciiStart = alternatives.filter((a) => !nonAscii(a));
  const otherStart = alternatives.filter(nonAscii);
  const branches: string[] = [];
  if (asciiStart.length > 0) branches.push(`\\b(?<!${WORD_CHAR})(?:${asciiStart.join('|')})`);
  if (otherStart.length > 0) branches.push(`(?<!${WORD_CHAR})(?:${otherStart.join('|')})`);
  const start = branches.length === 1 ? branches[0] : `(?:${branches.join('|')})`;
  return new RegExp(`${start}(?!${WORD_CHAR})`, 'gu');
}

/** A regex of alternatives that may sit inside words or between symbols (file names, code). */
export function fragments(...alternatives: string[]): RegExp {
  return new RegExp(`(?:${alternatives.join('|')})`, 'gu');
}

/** Builds a cue; `options` carries the optional fields. */
export function cue(pattern: RegExp, weight: number, options: { group: string; reason: string; explicit?: boolean; with?: RegExp }): Cue {
  return { pattern, weight, ...options };
}
