import { dot, type SparseVector } from './sparse-vector';

/**
 * Completion length: log(1 + tokens) = bias[model] + g·x. `g` is shared (what kind of prompt asks
 * for a long answer); the bias is the model's own verbosity, `typical` the mean over training models,
 * used for a model without one.
 */
export interface LengthModel {
  models: string[];
  bias: Float64Array;
  typical: number;
  weights: Float64Array;
}

/** Expected completion tokens of the model (number, or -1 for a model the length model has no bias for). */
export function expectedTokens(model: LengthModel, m: number, features: SparseVector): number {
  const bias = m >= 0 ? model.bias[m] : model.typical;
  return Math.max(1, Math.expm1(bias + dot(features, model.weights)));
}
