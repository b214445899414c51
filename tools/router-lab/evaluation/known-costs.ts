import type { RouterEstimate } from './eval-router';
import { meanOf, type CostQuality, type TestTable } from './test-table';

/**
 * The cost weights of the known-cost sweep, 0 to 1 by 0.001: finer than the service's grid, because here
 * the weight trades quality against dollars and a few cents of difference can move many prompts at once.
 */
const KNOWN_COST_WEIGHTS: readonly number[] = Array.from({ length: 1001 }, (_, i) => i / 1000);

/**
 * The pool index maximising `(1 − w)·quality − w·cost` on one prompt: the router's predicted quality
 * against the answer's TRUE cost (`costs`, in units of a constant of the test set; not min-max scaled per
 * prompt, so that the sweep traces the best trade-off of the mean: a Lagrangian). Ties go to the cheaper
 * answer, then to pool order.
 */
function chooseKnowingCosts(estimates: readonly RouterEstimate[], costs: readonly number[], w: number): number {
  let best = 0;
  let bestScore = -Infinity;
  estimates.forEach((estimate, m) => {
    const score = (1 - w) * estimate.quality - w * costs[m];
    if (score > bestScore || (score === bestScore && costs[m] < costs[best])) [best, bestScore] = [m, score];
  });
  return best;
}

/**
 * The router's (cost, quality) points when it is told what each answer really costs (each model's cost on
 * each prompt read from the labels), the accounting that reproduces the reference figures of issue 4. A live router
 * cannot know this before calling the model, so it is reported beside, never instead of, the figures of
 * the service's own rule; it isolates how well the router predicts quality from how well it predicts
 * answer lengths. Costs are scaled by `dearestSingleCost`, the dearest single model's mean cost on the test set.
 */
export function knownCostCurve(estimates: readonly RouterEstimate[][], table: TestTable, dearestSingleCost: number): CostQuality[] {
  const scale = dearestSingleCost || 1;
  const scaled = table.costs.map((costs) => costs.map((cost) => cost / scale));
  return KNOWN_COST_WEIGHTS.map((w) => {
    const { quality, cost } = meanOf(table, (i) => chooseKnowingCosts(estimates[i], scaled[i], w));
    return { quality, cost };
  });
}
