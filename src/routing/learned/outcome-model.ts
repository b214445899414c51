import { dot, type SparseVector } from './sparse-vector';

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
