import { createHash } from 'node:crypto';
import { MIN_RATINGS } from './feedback-cell';

/** Share of requests (0 to 1) that may try a near-best, little-rated model instead of the best one. */
export const EXPLORATION_RATE = 0.02;
/** How far below the best score (scores are 0 to 1) an explored model may be. */
export const EXPLORATION_MARGIN = 0.05;

/**
 * Whether this request explores: a hash of its id mapped to [0, 1) and compared with `rate`, so the
 * same request always decides the same way and about `rate` of all requests explore.
 */
export function shouldExplore(requestId: string, rate = EXPLORATION_RATE): boolean {
  const digest = createHash('sha256').update(requestId).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < rate;
}

export interface ExplorationCandidate {
  modelId: string;
  /** The decision's score, 0 to 1. */
  score: number;
  /** The Space's ratings of the model, all kinds of prompt together. */
  ratings: number;
}

/**
 * The model to try instead of the best one: the highest-ranked other candidate that the Space has
 * rated fewer than MIN_RATINGS times and whose score is within `margin` of the best. `ranked` is
 * best first (as the decision orders it), so ties keep the decision's order. Null when none qualifies.
 */
export function explorationPick<C extends ExplorationCandidate>(ranked: readonly C[], margin = EXPLORATION_MARGIN): C | null {
  const best = ranked[0];
  if (!best) return null;
  return ranked.slice(1).find((c) => c.ratings < MIN_RATINGS && best.score - c.score <= margin) ?? null;
}

export interface ExplorationOptions {
  /** Defaults to EXPLORATION_RATE. */
  rate?: number;
  /** Defaults to EXPLORATION_MARGIN. */
  margin?: number;
}

/**
 * The candidate to answer with and whether it was explored: the best one, unless the request is one
 * of the few that explore and a candidate qualifies. Exploration only reorders `ranked`, so it never
 * leaves the eligible candidates the caller passes.
 */
export function chooseWithExploration<C extends ExplorationCandidate>(
  requestId: string,
  ranked: readonly C[],
  options: ExplorationOptions = {},
): { chosen: C | null; explored: boolean } {
  const best = ranked[0] ?? null;
  if (!best || !shouldExplore(requestId, options.rate)) return { chosen: best, explored: false };
  const pick = explorationPick(ranked, options.margin);
  return pick ? { chosen: pick, explored: true } : { chosen: best, explored: false };
}
