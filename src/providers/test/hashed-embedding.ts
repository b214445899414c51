import type { EmbeddingInputs, EmbeddingResult } from '../../domain/embedding';
import { UpstreamError } from '../../errors/upstream-error';

/** The catalog name of the built-in embedding model, and its namespace (the provider's own name). */
const TEST_EMBEDDING_MODEL = 'test-embedding';
export const TEST_EMBEDDING_NAMESPACE = 'embedding';
/** Length of `test-embedding`'s vectors when the request names no `dimensions`; the most it gives. */
export const TEST_EMBEDDING_DIMENSIONS = 256;
/** Characters per n-gram. */
const NGRAM = 3;

/** 32-bit FNV-1a of a string's UTF-16 code units: small, fast and the same on every machine. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The features of one input: character 3-grams of the text (lower case, spaces collapsed, padded with one space), or the token ids. */
function featuresOf(input: string | number[]): string[] {
  if (typeof input !== 'string') return input.map((id) => `#${id}`);
  const chars = Array.from(` ${input.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()} `);
  if (chars.length <= NGRAM) return [chars.join('')];
  return Array.from({ length: chars.length - NGRAM + 1 }, (_, i) => chars.slice(i, i + NGRAM).join(''));
}

/**
 * `test-embedding`'s vector of one input: each feature adds ±1 to one of 256 buckets (bucket and sign
 * from its hash), then the first `dimensions` buckets are scaled to length 1, as OpenAI shortens its
 * text-embedding-3 vectors. Texts sharing n-grams point the same way, so cosine similarity ranks like a
 * crude lexical match. A vector with no length left (rare, tiny `dimensions`) is the first axis.
 */
export function hashedEmbedding(input: string | number[], dimensions: number = TEST_EMBEDDING_DIMENSIONS): number[] {
  const buckets = new Array<number>(TEST_EMBEDDING_DIMENSIONS).fill(0);
  for (const feature of featuresOf(input)) {
    const hash = fnv1a(feature);
    buckets[hash % TEST_EMBEDDING_DIMENSIONS] += hash & 0x80000000 ? -1 : 1;
  }
  const kept = buckets.slice(0, dimensions);
  const norm = Math.sqrt(kept.reduce((sum, x) => sum + x * x, 0));
  if (norm === 0) return kept.map((_, i) => (i === 0 ? 1 : 0));
  return kept.map((x) => x / norm);
}

/** Tokens counted for an input: the ids given, or about four characters a token. */
const tokensOf = (input: string | number[]) => (typeof input === 'string' ? Math.max(1, Math.ceil(input.length / 4)) : input.length);

/** `test-embedding`'s answer: one vector per input, in order; more `dimensions` than it has is refused, as OpenAI does (400). */
export function testEmbeddings(inputs: EmbeddingInputs, dimensions: number = TEST_EMBEDDING_DIMENSIONS): EmbeddingResult {
  if (dimensions > TEST_EMBEDDING_DIMENSIONS) {
    throw new UpstreamError({
      kind: 'bad_request',
      provider: 'test',
      status: 400,
      message: `${TEST_EMBEDDING_MODEL} gives at most ${TEST_EMBEDDING_DIMENSIONS} dimensions, not ${dimensions}`,
    });
  }
  const list: (string | number[])[] = inputs;
  return { vectors: list.map((input) => hashedEmbedding(input, dimensions)), promptTokens: list.reduce((sum, input) => sum + tokensOf(input), 0) };
}
