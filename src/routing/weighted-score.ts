import type { Weights } from '../domain/space-policies';

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
