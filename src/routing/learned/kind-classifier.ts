import { AdaGrad } from '../../router-lab/learned/adagrad';
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

export interface KindExample {
  features: SparseVector;
  kind: string;
}

export interface KindTraining {
  dimension: number;
  epochs: number;
  /** Order of the examples in each epoch (a seeded shuffle), as indices. */
  order: (epoch: number) => number[];
  l2: number;
}

export function trainKindClassifier(examples: KindExample[], options: KindTraining): KindClassifier {
  const kinds = [...new Set(examples.map((e) => e.kind))].sort();
  const classifier: KindClassifier = { kinds, weights: new Float64Array(kinds.length * options.dimension), dimension: options.dimension };
  const optimiser = new AdaGrad(classifier.weights, 0.5);
  const target = examples.map((e) => kinds.indexOf(e.kind));
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (const n of options.order(epoch)) {
      const { features } = examples[n];
      const posterior = kindPosterior(classifier, features);
      for (let k = 0; k < kinds.length; k++) {
        const error = posterior[k] - (k === target[n] ? 1 : 0);
        for (let i = 0; i < features.indices.length; i++) {
          const index = features.indices[i] * kinds.length + k;
          optimiser.step(index, error * features.values[i] + options.l2 * classifier.weights[index]);
        }
      }
    }
  }
  return classifier;
}
