/**
 * The learned router's linear models over a prompt's feature vector, each trained offline
 * (tools/router-lab/learned/) and read once per routed request: the kind classifier, the outcome
 * model's shared ease, the completion-length model; with the sparse vector they read and the
 * logistic link between probabilities and logits they share.
 */

/** A sparse feature vector: parallel arrays of indices (ascending) and values. */
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

/** Probabilities closer to 0 or 1 than this are clamped before `logit`, so logits stay finite. */
const LOGIT_EPSILON = 1e-4;

export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** The inverse of `sigmoid`, with `p` clamped to [1e-4, 1 − 1e-4]. */
export const logit = (p: number): number => {
  const q = Math.min(Math.max(p, LOGIT_EPSILON), 1 - LOGIT_EPSILON);
  return Math.log(q / (1 - q));
};

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

/**
 * P(model m answers prompt x well) = sigmoid( Σ_k p_k(x)·θ[m,k] + a[m]·(v·x) + r[m]·x ):
 * θ is the model's profile over kinds of prompt (logits), p(x) the prompt's kind posterior,
 * v·x how easy the prompt is (shared by every model: this is what transfers to models never seen),
 * a[m] how strongly the model feels ease, r[m] what the model alone does better or worse on.
 */
export interface OutcomeModel {
  models: string[];
  kinds: string[];
  dimension: number;
  /** `models.length × kinds.length`, row-major. */
  theta: Float64Array;
  slope: Float64Array;
  ease: Float64Array;
  /** `models.length × dimension`, row-major. */
  residual: Float64Array;
}

/** What one prompt contributes to every model's prediction, computed once per prompt. */
export interface PromptView {
  features: SparseVector;
  posterior: Float64Array;
  ease: number;
}

export function viewPrompt(model: OutcomeModel, features: SparseVector, posterior: Float64Array): PromptView {
  return { features, posterior, ease: dot(features, model.ease) };
}

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
