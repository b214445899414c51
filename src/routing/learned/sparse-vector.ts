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

/** Euclidean length of the vector. */
export function norm(vector: SparseVector): number {
  let sum = 0;
  for (const value of vector.values) sum += value * value;
  return Math.sqrt(sum);
}
