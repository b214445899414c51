import { kindPosterior, type KindClassifier, type SparseVector } from '../../../src/routing/learned/linear-models';
import { AdaGrad } from './adagrad';

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
