/** Words a fragment holds at most. */
const MAX_WORDS = 35;
const MAX_FRAGMENTS = 2;
/** Words kept before the first match of a fragment, so it does not start on the match. */
const LEAD_WORDS = 4;
/**
 * Endings a word may add to its stem (`charg` + `ing`, `vehicl` + `e`, `electr` + `ical`): a word
 * that merely begins like a stem (`costume` for `cost`) does not match.
 */
const ENDINGS = new Set(['s', 'es', 'e', 'ed', 'ing', 'ings', 'er', 'ers', 'est', 'ly', 'y', 'ic', 'ics', 'ical', 'ically', 'al', 'ally', 'ion', 'ions', 'ation', 'ations', 'ment', 'ments', 'ness', 'ity', 'ities', 'ive', 'ous', 'able', 'ful', 'ise', 'ize', 'ised', 'ized', "'s", '’s']);
const DELIMITER = ' … ';

interface Word {
  start: number;
  end: number;
  /** Whether the word is one of the query's terms (by its stem). */
  hit: boolean;
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/**
 * Whether a word is a form of a PostgreSQL `english` lexeme. Snowball stems are the word's beginning
 * (`vehicl`, `charg`), except that a final y becomes i (`batteri`); short stems must match whole.
 */
function isFormOf(word: string, lexeme: string): boolean {
  if (word === lexeme) return true;
  if (lexeme.length < 3) return false;
  if (word.startsWith(lexeme) && ENDINGS.has(word.slice(lexeme.length))) return true;
  // batteri: battery, batteries (the i is the stem's), but not a word that only shares `batter`.
  const base = lexeme.slice(0, -1);
  return lexeme.endsWith('i') && word.startsWith(base) && ['y', "y's", 'ies', 'ied', 'ier', 'iest'].includes(word.slice(base.length));
}

function wordsOf(text: string, lexemes: readonly string[]): Word[] {
  const words: Word[] = [];
  for (const match of text.matchAll(WORD)) {
    const lower = match[0].toLowerCase();
    words.push({ start: match.index, end: match.index + match[0].length, hit: lexemes.some((lexeme) => isFormOf(lower, lexeme)) });
  }
  return words;
}

/** The window of at most MAX_WORDS words around the match at `first` holding the most matches. */
function windowAt(words: Word[], first: number): { from: number; to: number; hits: number } {
  const from = Math.max(0, first - LEAD_WORDS);
  const to = Math.min(words.length, from + MAX_WORDS);
  let hits = 0;
  for (let i = from; i < to; i += 1) if (words[i]?.hit) hits += 1;
  return { from, to, hits };
}

/** Up to MAX_FRAGMENTS windows that do not overlap, richest first, then put back in text order. */
function chooseWindows(words: Word[]): { from: number; to: number }[] {
  const candidates = words.flatMap((word, i) => (word.hit ? [windowAt(words, i)] : [])).sort((a, b) => b.hits - a.hits || a.from - b.from);
  const chosen: { from: number; to: number }[] = [];
  for (const window of candidates) {
    if (chosen.length === MAX_FRAGMENTS) break;
    if (chosen.every((c) => window.to <= c.from || window.from >= c.to)) chosen.push(window);
  }
  return chosen.sort((a, b) => a.from - b.from);
}

/** The punctuation right after a fragment's last word (its full stop, comma or quote). */
function trailing(text: string, end: number): string {
  return /^[^\s\p{L}\p{N}]*/u.exec(text.slice(end, end + 8))?.[0] ?? '';
}

function fragment(text: string, words: Word[], { from, to }: { from: number; to: number }): string {
  let out = '';
  for (let i = from; i < to; i += 1) {
    const word = words[i] as Word;
    const next = words[i + 1];
    const gap = i + 1 < to && next ? text.slice(word.end, next.start).replace(/\s+/g, ' ') : trailing(text, word.end);
    const body = text.slice(word.start, word.end);
    out += (word.hit ? `**${body}**` : body) + gap;
  }
  return out;
}

/**
 * A short extract of a chunk around the query's terms, as `ts_headline` would give it (up to two
 * fragments of at most 35 words, terms in `**bold**`, joined by " … "), computed here rather than by
 * PostgreSQL: `lexemes` are the query's terms as PostgreSQL stems them, read by the search query
 * itself. A chunk where no term appears (found by its vector alone) gives its opening words.
 */
export function snippetOf(text: string, lexemes: readonly string[]): string {
  const words = wordsOf(text, lexemes);
  if (words.length === 0) return '';
  const windows = chooseWindows(words);
  if (windows.length === 0) return fragment(text, words, { from: 0, to: Math.min(words.length, MAX_WORDS) });
  return windows.map((window) => fragment(text, words, window)).join(DELIMITER);
}
