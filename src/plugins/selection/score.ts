import type { Cue, PluginModel } from './cue';
import { isNegated } from './negation';

/** How one plugin's cues met one text. */
export interface CueScore {
  /** Bias plus, per group, the strongest matched cue's weight (plus any `extra`). */
  logit: number;
  /** An explicit request for the plugin was negated ("don't search the web"). */
  vetoed: boolean;
  /** The positive cues that counted, strongest first, with the words that matched. */
  evidence: { cue: Cue; matched: string }[];
}

interface LiveMatch {
  /** The first match no negation governs, or null. */
  match: string | null;
  /** Some match was negated. */
  negated: boolean;
}

/**
 * Matches cues against one normalised text, remembering each pattern's result: the code-context
 * patterns are shared by every plugin and are matched once.
 */
export class TextMatcher {
  private readonly seen = new Map<RegExp, LiveMatch>();
  private readonly seenCounter = new Map<RegExp, LiveMatch>();

  constructor(readonly text: string) {}

  /** `test` of a global regex moves its `lastIndex`: start from 0 every time. */
  matches(pattern: RegExp): boolean {
    pattern.lastIndex = 0;
    const found = pattern.test(this.text);
    pattern.lastIndex = 0;
    return found;
  }

  /** Counter-evidence is counter-evidence even under a negation ("not in Python" still means code). */
  liveMatch(pattern: RegExp, counterEvidence: boolean): LiveMatch {
    const memo = counterEvidence ? this.seenCounter : this.seen;
    let found = memo.get(pattern);
    if (!found) {
      found = this.firstLiveMatch(pattern, counterEvidence);
      memo.set(pattern, found);
    }
    return found;
  }

  private firstLiveMatch(pattern: RegExp, counterEvidence: boolean): LiveMatch {
    let negated = false;
    pattern.lastIndex = 0;
    for (const m of this.text.matchAll(pattern)) {
      if (!counterEvidence && isNegated(this.text, m.index)) {
        negated = true;
        continue;
      }
      return { match: m[0], negated };
    }
    return { match: null, negated };
  }
}

/** Scores the text against one plugin's cues; `extra` adds evidence the text does not hold (an attached file). */
export function scoreCues(matcher: TextMatcher, model: PluginModel, extra: { cue: Cue; matched: string } | null): CueScore {
  const strongest = new Map<string, { cue: Cue; matched: string }>();
  let vetoed = false;
  for (const cue of model.cues) {
    if (cue.with && !matcher.matches(cue.with)) continue;
    const { match, negated } = matcher.liveMatch(cue.pattern, cue.weight < 0);
    if (negated && cue.explicit && match === null) vetoed = true;
    if (match === null) continue;
    const held = strongest.get(cue.group);
    if (!held || Math.abs(cue.weight) > Math.abs(held.cue.weight)) strongest.set(cue.group, { cue, matched: match });
  }
  const counted = [...strongest.values()];
  if (extra) counted.push(extra);
  const logit = counted.reduce((sum, c) => sum + c.cue.weight, model.bias);
  const evidence = counted.filter((c) => c.cue.weight > 0).sort((a, b) => b.cue.weight - a.cue.weight);
  return { logit, vetoed, evidence };
}
