/**
 * Whether a cue's match is negated by the words just before it in the same clause: "don't search the
 * web", "without looking anything up", "ne cherche pas", "ohne Internetsuche", "sin buscar".
 */

/** Where a clause ends: the negation of one clause does not reach into the next. */
const CLAUSE_BREAK = /[.,;:!?()"“”—–]|\b(?:but|just|instead|then|and then|aber|sondern|mais|pero|sino)\b/gu;

/** Phrases holding a negator that negate something else ("I don't know the latest ...") or nothing. */
const NOT_A_NEGATION =
  /\b(?:why (?:don't|do not|not)(?: you)?|(?:don't|do not|dont|doesn't) (?:know|remember|understand|care|mind|get)|not sure|not only|whether or not|or not|if not|no idea)\b/gu;

const NEGATOR =
  /(?<![\p{L}])(?:don't|do not|dont|doesn't|does not|didn't|never|not|no|without|avoid|skip|no need to|nicht|kein\p{L}*|ohne|ne|n'|pas|sans|jamais|sin|nunca)(?![\p{L}])/u;

/** How far back a negator still governs the cue: "don't need a picture" reaches, a sentence does not. */
const WINDOW_WORDS = 4;
const WINDOW_CHARS = 60;

export function isNegated(text: string, matchIndex: number): boolean {
  const before = text.slice(Math.max(0, matchIndex - WINDOW_CHARS), matchIndex);
  let clauseStart = 0;
  for (const m of before.matchAll(CLAUSE_BREAK)) clauseStart = m.index + m[0].length;
  const clause = before.slice(clauseStart).replace(NOT_A_NEGATION, ' ');
  const window = clause.trim().split(/\s+/u).slice(-WINDOW_WORDS).join(' ');
  // "n'ai pas": the French elision is glued to its verb, so look for it inside words too.
  return NEGATOR.test(window) || /(?<![\p{L}])n'/u.test(window);
}
