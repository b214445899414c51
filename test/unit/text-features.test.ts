import { promptFeatures } from '../../src/routing/learned/text-features';

const shape = (text: string) => ({ messages: [{ role: 'user', content: text }], tools: 0 });
const plain = (vector: { indices: Int32Array; values: Float32Array }) => ({ indices: Array.from(vector.indices), values: Array.from(vector.values) });

describe('promptFeatures', () => {
  it('gives a prompt the same vector whatever was read before it (the slots are reused)', () => {
    const first = plain(promptFeatures(shape('Prove that the square root of 2 is irrational.'), 32768));
    promptFeatures(shape('Write a poem about cats, dogs and 12345 other animals. '.repeat(40)), 32768);
    promptFeatures(shape('a b c'), 64);
    expect(plain(promptFeatures(shape('Prove that the square root of 2 is irrational.'), 32768))).toEqual(first);
  });

  it('lists each slot once, in index order, with the hashed part of unit length', () => {
    const buckets = 64;
    const vector = promptFeatures(shape('the cat sat on the mat and the cat sat again, calculate 3.14 * 42'), buckets);
    const indices = Array.from(vector.indices);
    expect(indices).toEqual([...new Set(indices)].sort((a, b) => a - b));
    const hashed = Array.from(vector.values).filter((_, i) => indices[i] < buckets);
    expect(Math.hypot(...hashed)).toBeCloseTo(1, 5);
    // The dense signals follow the hashed slots; the first is the constant 1.
    expect(vector.values[indices.indexOf(buckets)]).toBe(1);
  });

  it('counts a word bigram as the hash of the two words with a space between', () => {
    // "a a": unigram "a" twice and bigram "a a" once; with one bucket per slot they stay apart.
    const vector = promptFeatures(shape('a a'), 32768);
    const hashedSlots = Array.from(vector.indices).filter((index) => index < 32768);
    expect(hashedSlots).toHaveLength(2);
  });
});
