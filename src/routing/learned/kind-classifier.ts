import type { SparseVector } from './sparse-vector';

/** Softmax regression from prompt features to a kind of prompt (a quality-profile category). */
export interface KindClassifier {
  kinds: string[];
  /** Feature-major: weight of feature i for kind k at `i * kinds.length + k`, so one prompt reads contiguous memory. */
  weights: Float64Array;
  dimension: number;
}

/** Probability of each kind, in the order of `kinds`. */
export function kindPosterior(classifier: KindClassifier, features: SparseVector): Float64Array {
  const { kinds, weights } = classifier;
  const K = kinds.length;
  const out = new Float64Array(K);
  for (let i = 0; i < features.indices.length; i++) {
    const base = features.indices[i] * K;
    const value = features.values[i];
    for (let k = 0; k < K; k++) out[k] += weights[base + k] * value;
  }
  let max = -Infinity;
  for (let k = 0; k < K; k++) if (out[k] > max) max = out[k];
  let sum = 0;
  for (let k = 0; k < out.length; k++) sum += out[k] = Math.exp(out[k] - max);
  for (let k = 0; k < out.length; k++) out[k] /= sum;
  return out;
}
