/** Words a fragment holds at most. */
const MAX_WORDS = 35;
const MAX_FRAGMENTS = 2;
/** Words kept before the first match of a fragment, so it does not start on the match. */
const LEAD_WORDS = 4;
/**
 * Endings a word may add to its stem (`charg` + `ing`, `vehicl` + `e`, `electr` + `ical`): a word
 * that merely begins like a stem (`costume` for `cost`) does not match.
 */
const ENDINGS = new Set([
  's',
  'es',
  'e',
  'ed',
  'ing',
  'ings',
  'er',
  'ers',
  'est',
  'ly',
  'y',
  'ic',
  'ics',
  'ical',
  'ically',
  'al',
  'ally',
  'ion',
  'ions',
  'ation',
  'ations',
  'ment',
  'ments',
  'ness',
  'ity',
  'ities',
  'ive',
  'ous',
  'able',
  'ful',
  'ise',
  'ize',
  'ised',
  'ized',
  "'s",
  '’s',
]);
const I_STEM_ENDINGS = new Set(['y', "y's", 'ies', 'ied', 'ier', 'iest']);
const DELIMITER = ' … ';

/**
 * A chunk's words (letters and digits, with one `'s`-like tail of letters after an apostrophe), as
 * parallel arrays that every snippet reuses: a snippet is built for every hit of every search, and
 * objects (then growing arrays) per word were most of its cost. Valid until the next `wordsOf`.
 */
interface Words {
  starts: Int32Array;
  ends: Int32Array;
  /** 1 where the word is one of the query's terms (by its stem), else 0. */
  hits: Uint8Array;
  count: number;
}

const scratch: Words = { starts: new Int32Array(512), ends: new Int32Array(512), hits: new Uint8Array(512), count: 0 };

function grow(words: Words): void {
  const size = words.starts.length * 2;
  const starts = new Int32Array(size);
  const ends = new Int32Array(size);
  const hits = new Uint8Array(size);
  starts.set(words.starts);
  ends.set(words.ends);
  hits.set(words.hits);
  Object.assign(words, { starts, ends, hits });
}

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

function lowerAscii(unit: number): number {
  return unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit;
}

/** A word's first two code units, ASCII letters lowered (-1 past ASCII): what a term's forms begin with. */
function prefixKey(text: string, start: number, end: number): number {
  const first = text.charCodeAt(start);
  const second = end - start > 1 ? text.charCodeAt(start + 1) : 0;
  if (first >= 0x80 || second >= 0x80) return -1;
  return lowerAscii(first) * 0x80 + lowerAscii(second);
}

/**
 * Tells the query's terms among words, each distinct word tested once per search. A word whose first two
 * characters are ASCII and begin no term is told at once, without being taken out of its text: every
 * form of a term begins with the term's first two characters, or is the term itself when it is one
 * character long.
 */
class TermTest {
  private readonly known = new Map<string, boolean>();
  /** A bit for each ASCII prefix key a term has. */
  private readonly prefixes = new Uint32Array((0x80 * 0x80) / 32);

  constructor(private readonly lexemes: readonly string[]) {
    for (const lexeme of lexemes) {
      const key = prefixKey(lexeme, 0, lexeme.length);
      if (key >= 0) this.prefixes[key >>> 5] = (this.prefixes[key >>> 5] as number) | (1 << (key & 31));
    }
  }

  isTerm(text: string, start: number, end: number): boolean {
    const key = prefixKey(text, start, end);
    if (key >= 0 && (((this.prefixes[key >>> 5] as number) >>> (key & 31)) & 1) === 0) return false;
    const word = text.slice(start, end);
    let hit = this.known.get(word);
    if (hit === undefined) {
      const lower = word.toLowerCase();
      hit = this.lexemes.some((lexeme) => isFormOf(lower, lexeme));
      this.known.set(word, hit);
    }
    return hit;
  }
}

const NONE = 1;
const LETTER = 2;
const DIGIT = 3;
/** Each BMP character's class, 0 until first seen: a letter (\p{L}), a number (\p{N}) or neither. */
const CLASSES = new Uint8Array(0x10000);
const IS_LETTER = /^\p{L}$/u;
const IS_NUMBER = /^\p{N}$/u;
for (let code = 0; code < 0x80; code += 1) {
  const char = String.fromCharCode(code);
  CLASSES[code] = /[A-Za-z]/.test(char) ? LETTER : /[0-9]/.test(char) ? DIGIT : NONE;
}

/** The class of a character not seen yet, or of a surrogate pair (negative: its width is two). */
function classOfNew(text: string, i: number): number {
  const code = text.codePointAt(i) as number;
  const char = String.fromCodePoint(code);
  const found = IS_LETTER.test(char) ? LETTER : IS_NUMBER.test(char) ? DIGIT : NONE;
  // A surrogate's class depends on its neighbour (a pair's is its code point's), so it is not remembered.
  if (code < 0xd800 || (code > 0xdfff && code <= 0xffff)) CLASSES[code] = found;
  return code > 0xffff ? -found : found;
}

/** The class of the character at `i` (a whole code point); negative where it takes two code units. */
function classAt(text: string, i: number): number {
  const known = CLASSES[text.charCodeAt(i)] as number;
  return known !== 0 ? known : classOfNew(text, i);
}

/** Where the letters and numbers from `from` end (`letters`: letters alone). */
function runEnd(text: string, from: number, letters: boolean): number {
  let i = from;
  while (i < text.length) {
    const kind = classAt(text, i);
    const plain = kind < 0 ? -kind : kind;
    if (plain === NONE || (letters && plain !== LETTER)) break;
    i += kind < 0 ? 2 : 1;
  }
  return i;
}

const APOSTROPHE = 0x27;
const RIGHT_QUOTE = 0x2019;

/**
 * The words of a text, as `/[\p{L}\p{N}]+(?:['’]\p{L}+)?/gu` matches them, read by character code: a
 * match array and a string per word were most of a snippet's cost (`npm run bench:plugins`).
 */
function wordsOf(text: string, terms: TermTest): Words {
  const words = scratch;
  let count = 0;
  let i = 0;
  while (i < text.length) {
    const kind = classAt(text, i);
    if (kind === NONE || kind === -NONE) {
      i += kind < 0 ? 2 : 1;
      continue;
    }
    const start = i;
    i = runEnd(text, i, false);
    const mark = text.charCodeAt(i);
    if (mark === APOSTROPHE || mark === RIGHT_QUOTE) {
      const tail = runEnd(text, i + 1, true);
      if (tail > i + 1) i = tail;
    }
    if (count === words.starts.length) grow(words);
    words.starts[count] = start;
    words.ends[count] = i;
    words.hits[count] = terms.isTerm(text, start, i) ? 1 : 0;
    count += 1;
  }
  words.count = count;
  return words;
}

interface Window {
  from: number;
  to: number;
}

/** Whether the words `from` to `to` overlap a window already chosen. */
function overlapsChosen(chosen: Window[], from: number, to: number): boolean {
  for (const window of chosen) if (to > window.from && from < window.to) return true;
  return false;
}

/**
 * Up to MAX_FRAGMENTS windows that do not overlap, richest first (the earlier of equals), then put back
 * in text order. Each match proposes the window of at most MAX_WORDS words starting LEAD_WORDS before
 * it; its matches are counted from running totals. Each pick is one pass over the matches for the
 * richest window clear of those picked before: the same windows as sorting every proposal and taking
 * them greedily, without an object per proposal or the sort.
 */
function chooseWindows(words: Words): Window[] {
  const before = new Uint32Array(words.count + 1);
  for (let i = 0; i < words.count; i += 1) before[i + 1] = (before[i] as number) + (words.hits[i] as number);
  const chosen: Window[] = [];
  while (chosen.length < MAX_FRAGMENTS) {
    let bestHits = 0;
    let bestFrom = -1;
    let bestTo = 0;
    for (let i = 0; i < words.count; i += 1) {
      if (words.hits[i] !== 1) continue;
      const from = Math.max(0, i - LEAD_WORDS);
      const to = Math.min(words.count, from + MAX_WORDS);
      if (overlapsChosen(chosen, from, to)) continue;
      const hits = (before[to] as number) - (before[from] as number);
      if (bestFrom < 0 || hits > bestHits || (hits === bestHits && from < bestFrom)) {
        bestHits = hits;
        bestFrom = from;
        bestTo = to;
      }
    }
    if (bestFrom < 0) break;
    chosen.push({ from: bestFrom, to: bestTo });
  }
  return chosen.sort((a, b) => a.from - b.from);
}

/** The punctuation right after a fragment's last word (its full stop, comma or quote). */
function trailing(text: string, end: number): string {
  return /^[^\s\p{L}\p{N}]*/u.exec(text.slice(end, end + 8))?.[0] ?? '';
}

const WHITESPACE = /\s/;

/** Whether the text between two words has whitespace other than one space, which a fragment collapses. */
function needsCollapse(text: string, from: number, to: number): boolean {
  let previousSpace = false;
  for (let i = from; i < to; i += 1) {
    const unit = text.charCodeAt(i);
    const space = unit < 0x80 ? unit === 0x20 || (unit >= 0x09 && unit <= 0x0d) : WHITESPACE.test(text[i] as string);
    if (space && (unit !== 0x20 || previousSpace)) return true;
    previousSpace = space;
  }
  return false;
}

/**
 * The words `from` to `to` as they stand in the text, the query's terms in bold, each gap of whitespace
 * other than one space collapsed to one space. The text is taken out in runs, not word by word.
 */
function fragment(text: string, words: Words, { from, to }: { from: number; to: number }): string {
  let out = '';
  let run = words.starts[from] as number;
  for (let i = from; i < to; i += 1) {
    const start = words.starts[i] as number;
    const end = words.ends[i] as number;
    if (words.hits[i] === 1) {
      out += `${text.slice(run, start)}**${text.slice(start, end)}**`;
      run = end;
    }
    if (i + 1 === to) return out + text.slice(run, end) + trailing(text, end);
    const next = words.starts[i + 1] as number;
    if (needsCollapse(text, end, next)) {
      out += text.slice(run, end) + text.slice(end, next).replace(/\s+/g, ' ');
      run = next;
    }
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
