import type { SparseVector } from './sparse-vector';
import { lastUserText, type PromptShape } from './prompt-shape';

/**
 * Features of a prompt that say what kind of prompt it is and how hard, computed in process:
 * hashed word unigrams and bigrams and character trigrams of the last user message (L2-normalised
 * together), plus a few dense signals (length, digits, maths and code markers, language, turns, tools)
 * in the last `DENSE_FEATURES` slots.
 */
export const DENSE_FEATURES = 16;

/** Only the first this many characters of the last user message are read, so cost stays bounded. */
const MAX_CHARS = 6000;
const TOKEN = /[a-z]+|\d+(?:\.\d+)?|[^\s\w]/g;

/** FNV-1a over a string, 32 bits. */
function hash(text: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** FNV-1a carried on over more text: `hashOn(hash(a, 0), ' ' + b)` is `hash(a + ' ' + b, 0)`, without the string. */
function hashOn(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const SPACE = 32;
const TRIGRAM_MARK = 35;

/**
 * Hashed feature counts: the hash picks the slot, its top bit the sign (so collisions cancel out on
 * average). The slots live in one array per process, reused by every prompt (a prompt's features are
 * computed at once, with no await), and the slots a prompt touched are listed in the order it touched
 * them. It replaced a Map per prompt (about 5 KB of allocation per completion); sums, norm and vector
 * are the same, down to the order of the float additions.
 */
class HashedCounts {
  private readonly sums: Float64Array;
  /** The prompt that last touched each slot (`prompt`), so that no slot needs clearing between prompts. */
  private readonly touchedBy: Int32Array;
  private prompt = 0;
  private order: Int32Array = new Int32Array(256);
  /** Slots touched by this prompt, in `order`. */
  size = 0;

  constructor(readonly buckets: number) {
    this.sums = new Float64Array(buckets);
    this.touchedBy = new Int32Array(buckets);
  }

  /** Starts a prompt: every slot counts as empty. */
  reset(): void {
    this.prompt += 1;
    this.size = 0;
  }

  add(h: number, weight: number): void {
    const index = h % this.buckets;
    const sign = h & 0x80000000 ? -1 : 1;
    if (this.touchedBy[index] !== this.prompt) {
      this.touchedBy[index] = this.prompt;
      this.sums[index] = 0;
      if (this.size === this.order.length) this.order = grown(this.order);
      this.order[this.size++] = index;
    }
    this.sums[index] += sign * weight;
  }

  /** The slot this prompt touched `position`-th (in the order first touched). */
  slotAt(position: number): number {
    return this.order[position];
  }

  /** A touched slot's sum. */
  sumAt(index: number): number {
    return this.sums[index];
  }
}

function grown(array: Int32Array): Int32Array {
  const larger = new Int32Array(array.length * 2);
  larger.set(array);
  return larger;
}

/** One scratch per bucket count (a process loads one router). */
let scratch: HashedCounts | undefined;

function countsFor(buckets: number): HashedCounts {
  if (scratch?.buckets !== buckets) scratch = new HashedCounts(buckets);
  scratch.reset();
  return scratch;
}

/** Numbers become a shape token (`<num3>` = three digits) so that values do not fragment the vocabulary. */
function normalisedTokens(text: string): string[] {
  return (text.toLowerCase().match(TOKEN) ?? []).map((token) => (/^\d/.test(token) ? `<num${Math.min(token.length, 6)}>` : token));
}

/** Character trigrams of ` word ` (with boundary spaces), hashed from char codes without building strings. */
function addTrigrams(counts: HashedCounts, word: string): void {
  const code = (j: number) => (j === 0 || j === word.length + 1 ? SPACE : word.charCodeAt(j - 1));
  for (let j = 0; j + 3 <= word.length + 2; j++) {
    let h = Math.imul(0x811c9dc5 ^ TRIGRAM_MARK, 0x01000193);
    h = Math.imul(h ^ code(j), 0x01000193);
    h = Math.imul(h ^ code(j + 1), 0x01000193);
    h = Math.imul(h ^ code(j + 2), 0x01000193);
    counts.add(h >>> 0, 0.5);
  }
}

/** Word unigrams and bigrams and character trigrams of the text, counted into the scratch slots; answers their L2 norm. */
function countNgrams(counts: HashedCounts, text: string): number {
  const tokens = normalisedTokens(text);
  let previous = 0;
  for (let i = 0; i < tokens.length; i++) {
    const unigram = hash(tokens[i], 0);
    counts.add(unigram, 1);
    // The bigram `${tokens[i - 1]} ${tokens[i]}`, hashed on from the previous token's hash.
    if (i > 0) counts.add(hashOn(Math.imul(previous ^ SPACE, 0x01000193), tokens[i]), 1);
    if (tokens[i].length > 3) addTrigrams(counts, tokens[i]);
    previous = unigram;
  }
  let norm = 0;
  for (let position = 0; position < counts.size; position++) {
    const sum = counts.sumAt(counts.slotAt(position));
    norm += sum * sum;
  }
  return Math.sqrt(norm) || 1;
}

function share(text: string, pattern: RegExp): number {
  return text.length === 0 ? 0 : (text.match(pattern)?.length ?? 0) / text.length;
}

/** Dense signals, each scaled to roughly [0, 1]. */
function denseSignals(shape: PromptShape, text: string): number[] {
  // The whole conversation's length, newlines between messages counted, without joining it into one string.
  const allChars = shape.messages.reduce((sum, m) => sum + m.content.length, 0) + Math.max(shape.messages.length - 1, 0);
  return [
    1,
    Math.log1p(text.length) / 10,
    Math.log1p(allChars) / 10,
    Math.min(share(text, /\d/g) * 10, 1),
    Math.min(share(text, /[=+*/^<>]/g) * 20, 1),
    /\\(frac|sqrt|int|sum)|\$[^$]+\$/.test(text) ? 1 : 0,
    /```|\b(def|function|class|return|import|const|var)\b|[{};]\s*$/m.test(text) ? 1 : 0,
    Math.min(share(text, /[^\u0020-\u007e\s]/g) * 5, 1),
    Math.min((text.match(/\?/g)?.length ?? 0) / 5, 1),
    Math.min(text.split('\n').length / 50, 1),
    Math.min(shape.messages.length / 10, 1),
    shape.messages.some((m) => m.role === 'system' || m.role === 'developer') ? 1 : 0,
    Math.min(shape.tools / 5, 1),
    /\b(write|story|poem|essay|email|rewrite)\b/i.test(text) ? 1 : 0,
    /\b(prove|derive|calculate|compute|solve|find the)\b/i.test(text) ? 1 : 0,
    Math.min((text.match(/\b[0-9]+(\.[0-9]+)?\b/g)?.length ?? 0) / 20, 1),
  ];
}

/** The feature vector of a prompt, with `buckets` hashed slots followed by the dense signals. */
export function promptFeatures(shape: PromptShape, buckets: number): SparseVector {
  const text = lastUserText(shape).slice(0, MAX_CHARS);
  const counts = countsFor(buckets);
  const norm = countNgrams(counts, text);
  const dense = denseSignals(shape, text);
  let present = 0;
  for (const value of dense) if (value !== 0) present += 1;
  // The slots in index order: the indices sorted as a typed array (numeric, no comparator), then their values.
  const indices = new Int32Array(counts.size + present);
  for (let position = 0; position < counts.size; position++) indices[position] = counts.slotAt(position);
  let next = counts.size;
  for (let i = 0; i < dense.length; i++) if (dense[i] !== 0) indices[next++] = buckets + i;
  indices.sort();
  const values = new Float32Array(indices.length);
  for (let i = 0; i < indices.length; i++) values[i] = indices[i] < buckets ? counts.sumAt(indices[i]) / norm : dense[indices[i] - buckets];
  return { indices, values };
}
