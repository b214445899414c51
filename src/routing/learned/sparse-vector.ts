/** A sparse feature vector: parallel arrays of indices and values. */
export interface SparseVector {
  indices: Int32Array;
  values: Float32Array;
}

/** Sum of `weights[offset + index] * value` over the vector's entries. */
export function dot(vector: SparseVector, weights: ArrayLike<number>, offset = 0): number {
  let sum = 0;
  for (let i = 0; i < vector.indices.length; i++) sum += weights[offset + vector.indices[i]] * vector.values[i];
  return sum;
}

/** Builds a vector from accumulated `index → value` entries. */
export function fromEntries(entries: Map<number, number>): SparseVector {
  const indices = new Int32Array(entries.size);
  const values = new Float32Array(entries.size);
  let i = 0;
  for (const [index, value] of entries) {
    indices[i] = index;
    values[i] = value;
    i++;
  }
  return { indices, values };
}

/** Euclidean length of the vector. */
export function norm(vector: SparseVector): number {
  let sum = 0;
  for (const value of vector.values) sum += value * value;
  return Math.sqrt(sum);
}
