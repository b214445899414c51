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

  it('gives the vector the router was trained on: the hashed slots of "a a" with 64 buckets', () => {
    // The unigram "a" twice (slot 44, its hash's sign negative) and the bigram "a a" once (slot 31),
    // normalised together; then the dense signals from slot 64. The weights file was trained on these
    // exact slots, so any change to the hashing shows here (the values were read from the code before the
    // per-process slots, and are the same after them).
    const vector = promptFeatures(shape('a a'), 64);
    expect(Array.from(vector.indices)).toEqual([31, 44, 64, 65, 66, 73, 74]);
    expect(vector.values[0]).toBeCloseTo(1 / Math.sqrt(5), 6);
    expect(vector.values[1]).toBeCloseTo(-2 / Math.sqrt(5), 6);
    expect(vector.values[2]).toBe(1);
  });
});
