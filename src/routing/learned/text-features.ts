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

/** Hashed feature counts: the hash picks the slot, its top bit the sign (so collisions cancel out on average). */
class HashedCounts {
  readonly entries = new Map<number, number>();

  constructor(private readonly buckets: number) {}

  add(h: number, weight: number): void {
    const index = h % this.buckets;
    const sign = h & 0x80000000 ? -1 : 1;
    this.entries.set(index, (this.entries.get(index) ?? 0) + sign * weight);
  }

  addText(key: string, weight: number): void {
    this.add(hash(key, 0), weight);
  }
}

/** Numbers become a shape token (`<num3>` = three digits) so that values do not fragment the vocabulary. */
function normalisedTokens(text: string): string[] {
  return (text.toLowerCase().match(TOKEN) ?? []).map((token) => (/^\d/.test(token) ? `<num${Math.min(token.length, 6)}>` : token));
}

const SPACE = 32;
const TRIGRAM_MARK = 35;

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

function hashedNgrams(text: string, buckets: number): Map<number, number> {
  const counts = new HashedCounts(buckets);
  const tokens = normalisedTokens(text);
  for (let i = 0; i < tokens.length; i++) {
    counts.addText(tokens[i], 1);
    if (i > 0) counts.addText(`${tokens[i - 1]} ${tokens[i]}`, 1);
    if (tokens[i].length > 3) addTrigrams(counts, tokens[i]);
  }
  const { entries } = counts;
  let norm = 0;
  for (const value of entries.values()) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (const [index, value] of entries) entries.set(index, value / norm);
  return entries;
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
  const entries = hashedNgrams(text, buckets);
  denseSignals(shape, text).forEach((value, i) => {
    if (value !== 0) entries.set(buckets + i, value);
  });
  return sortedVector(entries);
}

/** The entries in index order: the indices sorted as a typed array (numeric, no comparator), then their values. */
function sortedVector(entries: Map<number, number>): SparseVector {
  const indices = Int32Array.from(entries.keys()).sort();
  const values = new Float32Array(indices.length);
  for (let i = 0; i < indices.length; i++) values[i] = entries.get(indices[i]) ?? 0;
  return { indices, values };
}
