import { promptFeatures } from '../../src/routing/learned/prompt-features';

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

  it('reads numbers, points, underscores and letters beyond ASCII as the weights were trained on', () => {
    // Read from the tokeniser the weights were trained with (a regular expression over the lowercased text,
    // `/[a-z]+|\d+(?:\.\d+)?|[^\s\w]/g`, and regular-expression counts for the dense signals).
    const text = 'İt costs 3.14.15 or 12a_b 007 — Kelvin K, ß? x=y^2 <b> ﬁne 😀 1.5e3 a12.3';
    const vector = promptFeatures(shape(text), 64);
    expect(Array.from(vector.indices)).toEqual([
      1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14, 17, 18, 21, 22, 23, 25, 26, 29, 30, 31, 32, 33, 34, 35, 37, 38, 40, 41, 42, 44, 46, 47, 48, 49, 50, 51, 52, 53,
      54, 55, 56, 59, 60, 62, 63, 64, 65, 66, 67, 68, 71, 72, 73, 74, 79,
    ]);
    const quarter = 0.08091133832931519;
    const eighth = 0.04045566916465759;
    expect(Array.from(vector.values)).toEqual([
      -quarter,
      -eighth,
      2 * quarter,
      -quarter,
      quarter,
      -eighth,
      quarter,
      quarter,
      0.24273401498794556,
      0,
      quarter,
      0,
      quarter,
      -quarter,
      -quarter,
      -0.24273401498794556,
      eighth,
      quarter,
      -0.32364535331726074,
      -quarter,
      -quarter,
      0,
      -0.36410102248191833,
      0,
      eighth,
      -eighth,
      -2 * quarter,
      eighth,
      0.24273401498794556,
      eighth,
      0,
      -0.24273401498794556,
      0,
      -quarter,
      0.32364535331726074,
      -quarter,
      2 * quarter,
      0,
      0,
      -eighth,
      -quarter,
      eighth,
      eighth,
      0.4045566916465759,
      0,
      quarter,
      0.24273401498794556,
      1,
      0.43040651082992554,
      0.43040651082992554,
      1,
      1,
      0.4109589159488678,
      0.20000000298023224,
      0.019999999552965164,
      0.10000000149011612,
      0.30000001192092896,
    ]);
  });

  it('counts the dense signals as their regular expressions do', () => {
    const pieces = [
      'a',
      'Z',
      '0',
      '42',
      '3.5',
      '.',
      '_',
      ' ',
      '\n',
      '\t',
      '\u00a0',
      '\u2028',
      '\ufeff',
      '\u0085',
      'é',
      'İ',
      '😀',
      '?',
      '=',
      '^',
      '<',
      'x1',
      '1x',
      '1.2.3',
      '12.a',
    ];
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;
    for (let run = 0; run < 500; run++) {
      const text = Array.from({ length: Math.floor(next() * 40) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
      const share = (pattern: RegExp) => (text.length === 0 ? 0 : count(text, pattern) / text.length);
      const expected = [
        Math.min(share(/\d/g) * 10, 1),
        Math.min(share(/[=+*/^<>]/g) * 20, 1),
        Math.min(share(/[^\u0020-\u007e\s]/g) * 5, 1),
        Math.min(count(text, /\?/g) / 5, 1),
        Math.min(text.split('\n').length / 50, 1),
        Math.min(count(text, /\b[0-9]+(\.[0-9]+)?\b/g) / 20, 1),
      ].map(Math.fround);
      const vector = promptFeatures(shape(text), 64);
      const dense = (slot: number) => vector.values[vector.indices.indexOf(64 + slot)] ?? 0;
      expect([3, 4, 7, 8, 9, 15].map(dense)).toEqual(expected);
    }
  });
});
