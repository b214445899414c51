import type { RoutableModel } from '../domain/routable-model';
import type { Weights } from '../domain/space-policies';
import { estimatedCost } from './hard-limits';
import { profileQuality, type RouterModel } from './learned/router-model';
import type { RequestProfile } from './request-profile';

/** What the decision weighs for one candidate. */
export interface CandidateEstimate {
  /** Probability of a good answer, 0 to 1. */
  quality: number;
  /** Estimated USD for this request. */
  cost: number;
  /** Expected latency, ms. */
  latency: number;
}

/** 1 for the best value among the candidates, 0 for the worst (lower is better). */
function closeness(value: number, best: number, worst: number): number {
  return worst === best ? 1 : (worst - value) / (worst - best);
}

/**
 * Each candidate's score: the weighted sum of its quality and of how cheap and fast it is relative to
 * the others (min-max over the candidates), weights normalised to sum to 1. The one decision rule of
 * the service and of `router:eval`.
 */
export function weightedScores(estimates: readonly CandidateEstimate[], weights: Weights): number[] {
  const costs = estimates.map((c) => c.cost);
  const latencies = estimates.map((c) => c.latency);
  const [cheapest, dearest] = [Math.min(...costs), Math.max(...costs)];
  const [fastest, slowest] = [Math.min(...latencies), Math.max(...latencies)];
  const total = weights.cost + weights.latency + weights.quality || 1;
  return estimates.map(
    (c) =>
      (weights.quality * c.quality + weights.cost * closeness(c.cost, cheapest, dearest) + weights.latency * closeness(c.latency, fastest, slowest)) / total,
  );
}

/** A candidate as the decision orders it. */
export interface ScoredCandidate {
  score: number;
  /** Estimated USD. */
  cost: number;
  name: string;
}

/** The decision's order: higher score first, then the lower estimated cost, then the name, so ties never depend on input order. */
export function byDecision(a: ScoredCandidate, b: ScoredCandidate): number {
  return b.score - a.score || a.cost - b.cost || a.name.localeCompare(b.name);
}

/** Probability that a model answers this request well, before what a Space's ratings teach. */
export interface QualityEstimator {
  estimate(model: RoutableModel, profile: RequestProfile): number;
}

/**
 * The learned router's estimate for a catalog model: its quality profile (per kind of prompt, the
 * overall figure for a kind it does not list) read through the prompt's kind posterior and ease.
 */
export function learnedQuality(router: RouterModel): QualityEstimator {
  return {
    estimate: (model, profile) => profileQuality(router, (kind) => model.quality.categories[kind] ?? model.quality.overall, profile.reading),
  };
}

/** A Space's correction of the offline estimate from its own ratings (`smart_learn`). */
export interface OnlineQuality {
  quality(modelId: string, kind: string, offline: number): number;
}

export interface CandidateScore {
  model: RoutableModel;
  /** The estimate the decision used: the offline one, corrected by the Space's ratings under `smart_learn`. */
  quality: number;
  offlineQuality: number;
  /** Estimated USD for this request. */
  cost: number;
  /** Expected latency, ms. */
  latency: number;
  score: number;
}

export interface ScoringInputs {
  weights: Weights;
  quality: QualityEstimator;
  /** Present when `smart_learn` is on for the request. */
  online?: OnlineQuality;
  expectedLatency(model: RoutableModel): number;
}

const round = (value: number, digits = 6) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * Scores each candidate as the weighted sum of its quality and of how cheap and fast it is relative to
 * the others; weights are normalised to sum to 1. Sorted best first; ties go to the cheaper model, then
 * by name, so the same inputs always give the same order.
 */
export function scoreCandidates(models: RoutableModel[], profile: RequestProfile, inputs: ScoringInputs): CandidateScore[] {
  const scored: CandidateScore[] = models.map((model) => {
    const offlineQuality = inputs.quality.estimate(model, profile);
    return {
      model,
      offlineQuality,
      quality: inputs.online ? inputs.online.quality(model.id, profile.reading.kind, offlineQuality) : offlineQuality,
      cost: estimatedCost(model, profile),
      latency: inputs.expectedLatency(model),
      score: 0,
    };
  });
  // Scored on the unrounded estimates, then rounded in place (a copy per candidate cost about 1 KB per request).
  const scores = weightedScores(scored, inputs.weights);
  for (let i = 0; i < scored.length; i++) {
    const candidate = scored[i];
    candidate.cost = round(candidate.cost, 9);
    candidate.latency = round(candidate.latency, 1);
    candidate.quality = round(candidate.quality, 4);
    candidate.offlineQuality = round(candidate.offlineQuality, 4);
    candidate.score = round(scores[i]);
  }
  // Sort keys built once per candidate: the comparator runs O(n log n) times on every request.
  const keyed = scored.map((candidate) => ({ candidate, score: candidate.score, cost: candidate.cost, name: candidate.model.model }));
  return keyed.sort(byDecision).map((key) => key.candidate);
}
