import { lastUserMessage } from '../../domain/chat';
import { isWhitespace } from '../../text/token-count';
import type { SparseVector } from './linear-models';

/**
 * What the learned router reads of a prompt, and the feature vector it makes of it: hashed word
 * unigrams and bigrams and character trigrams of the last user message (L2-normalised together), plus
 * a few dense signals (length, digits, maths and code markers, language, turns, tools) in the last
 * `DENSE_FEATURES` slots. Computed in process, once per routed request.
 */

/** A message reduced to what the router reads: its role and its text. */
export interface RoutedMessage {
  role: string;
  content: string;
}

/** What the router sees of a request. */
export interface PromptShape {
  messages: RoutedMessage[];
  /** Number of tools the request offers. */
  tools: number;
}

/** A bare prompt or a message list, as evaluation files carry them. */
export function shapeOf(prompt: string | RoutedMessage[], tools = 0): PromptShape {
  return { messages: typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : prompt, tools };
}

/**
 * The text the features read: the last user message, else the last message (a conversation without a
 * user turn is still routed on what it says). Not `domain/chat`'s `lastUserText`, which answers '' then
 * and joins text parts with newlines: the weights were trained on this reading.
 */
function askedText(shape: PromptShape): string {
  return (lastUserMessage(shape.messages) ?? shape.messages.at(-1))?.content ?? '';
}

/** Dense signals after the hashed slots. */
export const DENSE_FEATURES = 16;

/** Only the first this many characters of the last user message are read, so cost stays bounded. */
const MAX_CHARS = 6000;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const SPACE = 32;
const TRIGRAM_MARK = 35;
/** FNV-1a's state after the trigram mark, where every trigram's hash starts. */
const TRIGRAM_START = Math.imul(FNV_OFFSET ^ TRIGRAM_MARK, FNV_PRIME);

/** A token read in place: `text[from, to)`, `text` being the prompt or, for a number, its shape. */
interface TokenSpan {
  text: string;
  from: number;
  to: number;
}

/**
 * FNV-1a carried on over a token, 32 bits: from `FNV_OFFSET`, the token's hash; from a token's hash and
 * a space, the bigram's (`a b`), without building the string.
 */
function hashOn(h: number, { text, from, to }: TokenSpan): number {
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/**
 * Hashed feature counts: the hash picks the slot, its top bit the sign (so collisions cancel out on
 * average). The slots live in one array per process, reused by every prompt (a prompt's features are
 * computed at once, with no await). The slots a prompt touched are listed in the order it touched them
 * (the norm adds their squares in that order) and marked in a bitmap, which gives them in index order
 * without sorting. It replaced a Map per prompt (about 5 KB of allocation per completion); sums, norm
 * and vector are the same, down to the order of the float additions.
 */
class HashedCounts {
  private readonly sums: Float64Array;
  /** One bit per slot, set once this prompt has touched it; cleared when the next prompt starts. */
  private readonly touched: Int32Array;
  /** The slots this prompt touched, in the order first touched (room for every slot: no growing). */
  private readonly order: Int32Array;
  /** Slots touched by this prompt, in `order`. */
  size = 0;

  constructor(readonly buckets: number) {
    this.sums = new Float64Array(buckets);
    this.touched = new Int32Array(Math.ceil(buckets / 32));
    this.order = new Int32Array(buckets);
  }

  /** Starts a prompt: every slot counts as empty. */
  reset(): void {
    this.touched.fill(0);
    this.size = 0;
  }

  add(h: number, weight: number): void {
    const index = h % this.buckets;
    const sign = h & 0x80000000 ? -1 : 1;
    const bit = 1 << (index & 31);
    if ((this.touched[index >>> 5] & bit) === 0) {
      this.touched[index >>> 5] |= bit;
      this.sums[index] = 0;
      this.order[this.size++] = index;
    }
    this.sums[index] += sign * weight;
  }

  /** Writes the touched slots into `into` in increasing order, read off the bitmap word by word. */
  slotsInOrder(into: Int32Array): void {
    let next = 0;
    for (let word = 0; word < this.touched.length; word++) {
      for (let bits = this.touched[word]; bits !== 0; bits &= bits - 1) into[next++] = word * 32 + 31 - Math.clz32(bits & -bits);
    }
  }

  /** L2 norm of the sums (1 when all are 0), their squares added in the order the slots were first touched. */
  norm(): number {
    let squares = 0;
    for (let position = 0; position < this.size; position++) {
      const sum = this.sums[this.order[position]];
      squares += sum * sum;
    }
    return Math.sqrt(squares) || 1;
  }

  /** A touched slot's sum. */
  sumAt(index: number): number {
    return this.sums[index];
  }
}

/** One scratch per bucket count (a process loads one router). */
let scratch: HashedCounts | undefined;

function countsFor(buckets: number): HashedCounts {
  if (scratch?.buckets !== buckets) scratch = new HashedCounts(buckets);
  scratch.reset();
  return scratch;
}

const isLetter = (code: number): boolean => code >= 0x61 && code <= 0x7a;
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
/** What `\w` matches: ASCII letters and digits, and `_`. */
const isWordChar = (code: number): boolean => isLetter(code) || isDigit(code) || (code >= 0x41 && code <= 0x5a) || code === 0x5f;
const POINT = 0x2e;

function digitsEnd(text: string, i: number): number {
  while (isDigit(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Where the token at `i` of a lowercased text ends, as `/[a-z]+|\d+(?:\.\d+)?|[^\s\w]/g` reads it: a run
 * of letters, a number (digits, then a point and digits if they follow), or one other UTF-16 code unit;
 * `i` itself when none starts there (white space, `_`, a letter outside a-z that is `\w`).
 */
function tokenEnd(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (isLetter(code)) {
    let end = i + 1;
    while (isLetter(text.charCodeAt(end))) end++;
    return end;
  }
  if (isDigit(code)) {
    const end = digitsEnd(text, i + 1);
    return text.charCodeAt(end) === POINT && isDigit(text.charCodeAt(end + 1)) ? digitsEnd(text, end + 2) : end;
  }
  return isWhitespace(code) || isWordChar(code) ? i : i + 1;
}

/** The tokens numbers count as, by length (digits and point, at most 6), so that values do not fragment the vocabulary. */
const NUMBER_SHAPES = ['<num1>', '<num2>', '<num3>', '<num4>', '<num5>', '<num6>'];

/** Character trigrams of ` token ` (with boundary spaces), hashed from char codes. */
function addTrigrams(counts: HashedCounts, { text, from, to }: TokenSpan): void {
  let a = SPACE;
  let b = text.charCodeAt(from);
  for (let j = from; j < to; j++) {
    const c = j + 1 < to ? text.charCodeAt(j + 1) : SPACE;
    counts.add(Math.imul(Math.imul(Math.imul(TRIGRAM_START ^ a, FNV_PRIME) ^ b, FNV_PRIME) ^ c, FNV_PRIME) >>> 0, 0.5);
    a = b;
    b = c;
  }
}

/**
 * Word unigrams and bigrams and character trigrams of the lowercased text, counted into the scratch
 * slots in the text's order (read in place: no token is cut out as a string); answers their L2 norm.
 */
function countNgrams(counts: HashedCounts, text: string): number {
  const lower = text.toLowerCase();
  const token: TokenSpan = { text: lower, from: 0, to: 0 };
  /** The previous token's hash, -1 before the first token. */
  let previous = -1;
  let i = 0;
  while (i < lower.length) {
    const end = tokenEnd(lower, i);
    if (end === i) {
      i += 1;
      continue;
    }
    // A number counts as its shape: the token is then that string, whole.
    const number = isDigit(lower.charCodeAt(i)) ? NUMBER_SHAPES[Math.min(end - i, 6) - 1] : null;
    token.text = number ?? lower;
    token.from = number === null ? i : 0;
    token.to = number === null ? end : number.length;
    const unigram = hashOn(FNV_OFFSET, token);
    counts.add(unigram, 1);
    if (previous >= 0) counts.add(hashOn(Math.imul(previous ^ SPACE, FNV_PRIME), token), 1);
    if (token.to - token.from > 3) addTrigrams(counts, token);
    previous = unigram;
    i = end;
  }
  return counts.norm();
}

/** `=+*\/^<>` */
const isOperator = (code: number): boolean =>
  code === 0x3d || code === 0x2b || code === 0x2a || code === 0x2f || code === 0x5e || code === 0x3c || code === 0x3e;

/** How often the characters the dense signals weigh occur (`foreign`: neither printable ASCII nor white space), in one pass. */
function characterCounts(text: string): Record<'digits' | 'operators' | 'foreign' | 'questions' | 'newlines', number> {
  const counts = { digits: 0, operators: 0, foreign: 0, questions: 0, newlines: 0 };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isDigit(code)) counts.digits += 1;
    else if (code === 0x3f) counts.questions += 1;
    else if (code === 0x0a) counts.newlines += 1;
    else if (isOperator(code)) counts.operators += 1;
    else if ((code < 0x20 || code > 0x7e) && !isWhitespace(code)) counts.foreign += 1;
  }
  return counts;
}

/**
 * Numbers standing alone, as `/\b[0-9]+(\.[0-9]+)?\b/g` finds them: digits not preceded by a word
 * character, with their point and decimals when a word boundary follows those, else up to the point.
 */
function standaloneNumbers(text: string): number {
  let count = 0;
  let i = 0;
  while (i < text.length) {
    if (!isDigit(text.charCodeAt(i)) || isWordChar(text.charCodeAt(i - 1))) {
      i += 1;
      continue;
    }
    const whole = digitsEnd(text, i + 1);
    const end = text.charCodeAt(whole) === POINT && isDigit(text.charCodeAt(whole + 1)) ? digitsEnd(text, whole + 2) : whole;
    // No boundary after the decimals: the number ends before its point (itself a boundary), if it has one.
    const matched = !isWordChar(text.charCodeAt(end)) ? end : end > whole ? whole : -1;
    if (matched >= 0) count += 1;
    i = matched >= 0 ? matched : whole;
  }
  return count;
}

const share = (count: number, text: string): number => (text.length === 0 ? 0 : count / text.length);

const LATEX = /\\(frac|sqrt|int|sum)|\$[^$]+\$/;
const CODE = /```|\b(def|function|class|return|import|const|var)\b|[{};]\s*$/m;
const WRITING_VERB = /\b(write|story|poem|essay|email|rewrite)\b/i;
const DERIVING_VERB = /\b(prove|derive|calculate|compute|solve|find the)\b/i;

/** Dense signals, each scaled to roughly [0, 1]. */
function denseSignals(shape: PromptShape, text: string): number[] {
  // The whole conversation's length, newlines between messages counted, without joining it into one string.
  const allChars = shape.messages.reduce((sum, m) => sum + m.content.length, 0) + Math.max(shape.messages.length - 1, 0);
  const counts = characterCounts(text);
  return [
    1,
    Math.log1p(text.length) / 10,
    Math.log1p(allChars) / 10,
    Math.min(share(counts.digits, text) * 10, 1),
    Math.min(share(counts.operators, text) * 20, 1),
    LATEX.test(text) ? 1 : 0,
    CODE.test(text) ? 1 : 0,
    Math.min(share(counts.foreign, text) * 5, 1),
    Math.min(counts.questions / 5, 1),
    Math.min((counts.newlines + 1) / 50, 1),
    Math.min(shape.messages.length / 10, 1),
    shape.messages.some((m) => m.role === 'system' || m.role === 'developer') ? 1 : 0,
    Math.min(shape.tools / 5, 1),
    WRITING_VERB.test(text) ? 1 : 0,
    DERIVING_VERB.test(text) ? 1 : 0,
    Math.min(standaloneNumbers(text) / 20, 1),
  ];
}

/** The feature vector of a prompt, with `buckets` hashed slots followed by the dense signals. */
export function promptFeatures(shape: PromptShape, buckets: number): SparseVector {
  const text = askedText(shape).slice(0, MAX_CHARS);
  const counts = countsFor(buckets);
  const norm = countNgrams(counts, text);
  const dense = denseSignals(shape, text);
  let present = 0;
  for (const value of dense) if (value !== 0) present += 1;
  // The slots in index order: the hashed ones (all below `buckets`), then the dense ones; then their values.
  const indices = new Int32Array(counts.size + present);
  counts.slotsInOrder(indices);
  let next = counts.size;
  for (let i = 0; i < dense.length; i++) if (dense[i] !== 0) indices[next++] = buckets + i;
  const values = new Float32Array(indices.length);
  for (let i = 0; i < indices.length; i++) values[i] = indices[i] < buckets ? counts.sumAt(indices[i]) / norm : dense[indices[i] - buckets];
  return { indices, values };
}
