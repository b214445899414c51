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
const I_STEM_ENDINGS = new Set(['y', "y's", 'ies', 'ied', 'ier', 'iest']);
const DELIMITER = ' … ';

/**
 * A chunk's words (WORD: letters and digits, with one `'s`-like tail of letters after an apostrophe), as
 * parallel arrays: a snippet is built for every hit of every search, and objects per word were most
 * of its cost.
 */
interface Words {
  starts: number[];
  ends: number[];
  /** 1 where the word is one of the query's terms (by its stem), else 0. */
  hits: number[];
  count: number;
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
  return lexeme.endsWith('i') && word.startsWith(base) && I_STEM_ENDINGS.has(word.slice(base.length));
}

/** Tells the query's terms among words, each distinct word tested once per search. */
class TermTest {
  private readonly known = new Map<string, boolean>();

  constructor(private readonly lexemes: readonly string[]) {}

  isTerm(word: string): boolean {
    let hit = this.known.get(word);
    if (hit === undefined) {
      const lower = word.toLowerCase();
      hit = this.lexemes.some((lexeme) => isFormOf(lower, lexeme));
      this.known.set(word, hit);
    }
    return hit;
  }
}

function wordsOf(text: string, terms: TermTest): Words {
  const starts: number[] = [];
  const ends: number[] = [];
  const hits: number[] = [];
  // The one global expression, read from the start by this synchronous loop.
  WORD.lastIndex = 0;
  for (let match = WORD.exec(text); match !== null; match = WORD.exec(text)) {
    const word = match[0];
    starts.push(match.index);
    ends.push(match.index + word.length);
    hits.push(terms.isTerm(word) ? 1 : 0);
  }
  return { starts, ends, hits, count: starts.length };
}

interface Window {
  from: number;
  to: number;
  hits: number;
}

/**
 * Up to MAX_FRAGMENTS windows that do not overlap, richest first, then put back in text order. Each
 * match proposes the window of at most MAX_WORDS words starting LEAD_WORDS before it; its matches are
 * counted from running totals.
 */
function chooseWindows(words: Words): { from: number; to: number }[] {
  const before = new Uint32Array(words.count + 1);
  for (let i = 0; i < words.count; i += 1) before[i + 1] = (before[i] as number) + (words.hits[i] as number);
  const candidates: Window[] = [];
  for (let i = 0; i < words.count; i += 1) {
    if (words.hits[i] !== 1) continue;
    const from = Math.max(0, i - LEAD_WORDS);
    const to = Math.min(words.count, from + MAX_WORDS);
    candidates.push({ from, to, hits: (before[to] as number) - (before[from] as number) });
  }
  candidates.sort((a, b) => b.hits - a.hits || a.from - b.from);
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

function fragment(text: string, words: Words, { from, to }: { from: number; to: number }): string {
  let out = '';
  for (let i = from; i < to; i += 1) {
    const start = words.starts[i] as number;
    const end = words.ends[i] as number;
    let gap: string;
    if (i + 1 < to) {
      gap = text.slice(end, words.starts[i + 1]);
      if (gap !== ' ') gap = gap.replace(/\s+/g, ' ');
    } else gap = trailing(text, end);
    const body = text.slice(start, end);
    out += (words.hits[i] === 1 ? `**${body}**` : body) + gap;
  }
  return out;
}

function snippetWith(text: string, terms: TermTest): string {
  const words = wordsOf(text, terms);
  if (words.count === 0) return '';
  const windows = chooseWindows(words);
  if (windows.length === 0) return fragment(text, words, { from: 0, to: Math.min(words.count, MAX_WORDS) });
  return windows.map((window) => fragment(text, words, window)).join(DELIMITER);
}

/**
 * Snippets for one search: `snippetOf` for each of its chunks, the query's terms told apart once per
 * distinct word of the search rather than once per word of every chunk.
 */
export function snippetsFor(lexemes: readonly string[]): (text: string) => string {
  const terms = new TermTest(lexemes);
  return (text) => snippetWith(text, terms);
}

/**
 * A short extract of a chunk around the query's terms, as `ts_headline` would give it (up to two
 * fragments of at most 35 words, terms in `**bold**`, joined by " … "), computed here rather than by
 * PostgreSQL: `lexemes` are the query's terms as PostgreSQL stems them, read by the search query
 * itself. A chunk where no term appears (found by its vector alone) gives its opening words.
 */
export function snippetOf(text: string, lexemes: readonly string[]): string {
  return snippetsFor(lexemes)(text);
}
