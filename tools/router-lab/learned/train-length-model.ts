import { dot, type LengthModel, type SparseVector } from '../../../src/routing/learned/linear-models';
import { AdaGrad } from './adagrad';

export interface LengthExample {
  features: SparseVector;
  /** Model number → completion tokens. */
  tokens: Array<[number, number]>;
}

export interface LengthTraining {
  dimension: number;
  epochs: number;
  order: (epoch: number) => number[];
  l2: number;
}

export function trainLengthModel(models: string[], examples: LengthExample[], options: LengthTraining): LengthModel {
  const bias = new Float64Array(models.length);
  const counts = new Float64Array(models.length);
  for (const { tokens } of examples)
    for (const [m, n] of tokens) {
      bias[m] += Math.log1p(n);
      counts[m]++;
    }
  for (let m = 0; m < models.length; m++) bias[m] = counts[m] > 0 ? bias[m] / counts[m] : 0;
  const weights = new Float64Array(options.dimension);
  const optimiser = new AdaGrad(weights, 0.05);
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (const n of options.order(epoch)) {
      const { features, tokens } = examples[n];
      const shared = dot(features, weights);
      let gradient = 0;
      for (const [m, count] of tokens) gradient += bias[m] + shared - Math.log1p(count);
      gradient /= Math.max(tokens.length, 1);
      for (let i = 0; i < features.indices.length; i++) {
        const index = features.indices[i];
        optimiser.step(index, gradient * features.values[i] + options.l2 * weights[index]);
      }
    }
  }
  const rated = [...counts.keys()].filter((m) => counts[m] > 0);
  const typical = rated.length > 0 ? rated.reduce((sum, m) => sum + bias[m], 0) / rated.length : Math.log1p(300);
  return { models, bias, typical, weights };
}
