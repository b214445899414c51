import { byDecision, weightedScores, type CandidateEstimate } from '../../../src/routing/scorer';
import type { EvalRouter, RouterEstimate } from './eval-router';
import { meanOf, type CostQuality, type TestTable } from './test-table';

/** The cost weights every router is swept over: 0, 0.01, …, 1 (101 values); quality gets 1 − w. */
export const COST_WEIGHTS: readonly number[] = Array.from({ length: 101 }, (_, i) => i / 100);

export interface CurvePoint extends CostQuality {
  costWeight: number;
}

export interface Sweep {
  /** One point per cost weight, in `COST_WEIGHTS` order. */
  points: CurvePoint[];
  /** `choices[weight][prompt]`: the pool index of the model chosen. */
  choices: number[][];
  /** `estimates[prompt][model]`: what the router said, models in pool order. */
  estimates: RouterEstimate[][];
}

/** The weights at each cost weight of the grid: quality 1 − w, cost w, latency 0. */
const GRID_WEIGHTS = COST_WEIGHTS.map((w) => ({ quality: 1 - w, cost: w, latency: 0 }));

/**
 * The service's decision at the `k`-th cost weight of the grid: the argmax of `weightedScores`, ties
 * going to the lower estimated cost, then to the model name. Latency is not evaluated, so it is 0.
 */
export function chooseModel(candidates: readonly CandidateEstimate[], models: readonly string[], k: number): number {
  const scores = weightedScores(candidates, GRID_WEIGHTS[k]);
  const scored = models.map((name, m) => ({ score: scores[m], cost: candidates[m].cost, name }));
  let best = 0;
  for (let m = 1; m < models.length; m++) if (byDecision(scored[m], scored[best]) < 0) best = m;
  return best;
}

/** The router's estimates for every test prompt, models in pool order. */
export function askRouter(router: EvalRouter, table: TestTable): RouterEstimate[][] {
  return table.lines.map((line) => {
    const answer = router.estimate(line, table.pool);
    if (answer.length !== table.pool.length) throw new Error(`The router gave ${answer.length} estimates for ${table.pool.length} models.`);
    return answer;
  });
}

/** Asks the router once per test prompt, then decides at every cost weight of the grid. */
export function sweepRouter(router: EvalRouter, table: TestTable): Sweep {
  const estimates = askRouter(router, table);
  const candidates = estimates.map((e) => e.map(({ quality, cost }) => ({ quality, cost, latency: 0 })));
  const choices = COST_WEIGHTS.map((_, k) => candidates.map((c) => chooseModel(c, table.pool, k)));
  const points = COST_WEIGHTS.map((costWeight, k) => {
    const { quality, cost } = meanOf(table, (i) => choices[k][i]);
    return { costWeight, quality, cost };
  });
  return { points, choices, estimates };
}
