import type { SingleModel } from './test-table';

/** One test prompt as RouteLLM's metrics see it. */
export interface PairedPrompt {
  id: string;
  /** The router's estimated quality of the strong model minus the weak one's: how much the prompt needs the strong model. */
  preference: number;
  strongOutcome: number;
  weakOutcome: number;
}

export interface TwoModelMetrics {
  /** Area under PGR(x) over x ∈ [0, 1] (trapezoids over x = k/N). */
  apgr: number;
  /** The smallest share of calls to the strong model at which PGR ≥ 0.5. */
  cpt50: number;
  /** PGR(k/N) for k = 0..N. */
  pgr: number[];
}

/** Strong = the pool model with the higher mean test outcome (ties: the dearer, then the name); weak = the other. */
export function strongAndWeak(singles: readonly SingleModel[]): { strong: number; weak: number } {
  const [a, b] = singles;
  const aStronger = a.quality > b.quality || (a.quality === b.quality && (a.cost > b.cost || (a.cost === b.cost && a.model.localeCompare(b.model) < 0)));
  return aStronger ? { strong: 0, weak: 1 } : { strong: 1, weak: 0 };
}

/**
 * APGR and CPT(50%) as RouteLLM (Ong et al. 2024) defines them, for a pool of two models.
 * PGR(x) = (q(x) − q_weak) / (q_strong − q_weak), x being the share of calls sent to the strong model.
 * Prompts are ordered by preference, highest first (ties by id), and the top k go to the strong model, so
 * every x = k/N is reached exactly; with two models this equals sweeping the cost weight continuously
 * under the decision rule, since one candidate's cost closeness is 1 and the other's 0. Null when both
 * models score the same mean, where PGR is undefined.
 */
export function twoModelMetrics(prompts: readonly PairedPrompt[]): TwoModelMetrics | null {
  const n = prompts.length;
  const sumStrong = prompts.reduce((sum, p) => sum + p.strongOutcome, 0);
  const sumWeak = prompts.reduce((sum, p) => sum + p.weakOutcome, 0);
  if (n === 0 || sumStrong === sumWeak) return null;
  const order = [...prompts].sort((a, b) => b.preference - a.preference || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const pgr = [0];
  let sum = sumWeak;
  for (const p of order) {
    sum += p.strongOutcome - p.weakOutcome;
    pgr.push((sum - sumWeak) / (sumStrong - sumWeak));
  }
  pgr[n] = 1;
  let area = 0;
  for (let k = 1; k <= n; k++) area += (pgr[k - 1] + pgr[k]) / 2 / n;
  const k50 = pgr.findIndex((value) => value >= 0.5);
  return { apgr: area, cpt50: k50 / n, pgr };
}
