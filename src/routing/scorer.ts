import type { RoutableModel } from '../domain/routable-model';
import type { Weights } from '../schemas/apps';
import { estimatedCost } from './hard-limits';
import type { RequestProfile } from './request-profile';
import { weightedScores } from './weighted-score';

/** Probability that a model answers this request well. The learned predictor plugs in here. */
export interface QualityEstimator {
  estimate(model: RoutableModel, profile: RequestProfile): number;
}

/** The catalog's per-category prior, or its overall figure when the category is unknown. */
export const catalogQuality: QualityEstimator = {
  estimate: (model, profile) => (profile.category !== null ? model.quality.categories[profile.category] : undefined) ?? model.quality.overall,
};

export interface CandidateScore {
  model: RoutableModel;
  quality: number;
  /** Estimated USD for this request. */
  cost: number;
  /** Expected latency, ms. */
  latency: number;
  score: number;
}

export interface ScoringInputs {
  weights: Weights;
  quality: QualityEstimator;
  expectedLatency(model: RoutableModel): number;
}

const round = (value: number, digits = 6) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * Scores each candidate as the weighted sum of its quality and of how cheap and fast it is relative to
 * the others; weights are normalised to sum to 1. Sorted best first; ties go to the cheaper model, then
 * by name, so the same inputs always give the same order.
 */
export function scoreCandidates(models: RoutableModel[], profile: RequestProfile, inputs: ScoringInputs): CandidateScore[] {
  const raw = models.map((model) => ({
    model,
    quality: inputs.quality.estimate(model, profile),
    cost: estimatedCost(model, profile),
    latency: inputs.expectedLatency(model),
  }));
  const scores = weightedScores(raw, inputs.weights);
  const scored = raw.map((c, i) => ({
    ...c,
    cost: round(c.cost, 9),
    latency: round(c.latency, 1),
    quality: round(c.quality, 4),
    score: round(scores[i]),
  }));
  return scored.sort((a, b) => b.score - a.score || a.cost - b.cost || a.model.model.localeCompare(b.model.model));
}
