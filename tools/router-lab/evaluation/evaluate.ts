import type { EvalRouter, RouterTrainer } from './eval-router';
import { knownCostCurve } from './known-costs';
import type { LabelledPrompt, PriceTable } from './labelled-prompt';
import { aiq, bestSingle, cheapestSingle, costSave } from './metrics';
import { sweepRouter, type Sweep } from './sweep';
import { buildTestTable, singleModels, type SingleModel, type TestTable } from './test-table';
import { strongAndWeak, twoModelMetrics } from './two-model-metrics';

/** A router under evaluation, by the name it is reported under. */
export interface Contender {
  name: string;
  train: RouterTrainer;
}

export interface EvaluationOptions {
  train: readonly LabelledPrompt[];
  test: readonly LabelledPrompt[];
  /** The candidates: models with an outcome on every test line (see `evaluationPool`). */
  pool: readonly string[];
  prices: PriceTable | null;
  seed: number;
  contenders: readonly Contender[];
  /** Told how long each router took, in seconds (progress for the operator, kept out of the report). */
  onTimed?: (name: string, seconds: { train: number; evaluate: number }) => void;
}

export interface RouterReport {
  /** Mean test outcome at quality-only weights (cost weight 0). */
  quality: number;
  /** Mean USD per prompt at quality-only weights. */
  cost: number;
  cost_save: number | null;
  /** CostSave when the router is told each answer's true cost (`knownCostCurve`): not reachable live. */
  cost_save_known_costs: number | null;
  aiq: number;
  /** Two-model pools only. */
  apgr?: number | null;
  cpt50?: number | null;
  curve: { cost_weight: number; quality: number; cost: number }[];
}

export interface EvaluationReport {
  pool: string[];
  prompts: { train: number; test: number };
  best_single: SingleModel;
  cheapest_single: SingleModel;
  single_models: SingleModel[];
  routers: Record<string, RouterReport>;
}

export interface Evaluation {
  report: EvaluationReport;
  table: TestTable;
  sweeps: Map<string, Sweep>;
  routers: Map<string, EvalRouter>;
}

/** Seconds between two `performance.now()` readings, to 0.01 s. */
const seconds = (from: number, to: number) => Math.round((to - from) / 10) / 100;

/** Trains every contender on `train`, sweeps it over `test` and computes its figures. */
export function evaluateRouters(options: EvaluationOptions): Evaluation {
  const table = buildTestTable(options.test, options.pool, options.prices);
  const singles = singleModels(table);
  const best = bestSingle(singles);
  const cheapest = cheapestSingle(singles);
  const maxCost = Math.max(...singles.map((s) => s.cost));
  const sweeps = new Map<string, Sweep>();
  const routers = new Map<string, EvalRouter>();
  const reports: Record<string, RouterReport> = {};
  for (const contender of options.contenders) {
    const started = performance.now();
    const router = contender.train({ prompts: [...options.train], prices: options.prices, seed: options.seed });
    const trained = performance.now();
    const sweep = sweepRouter(router, table);
    const [first] = sweep.points;
    reports[contender.name] = {
      quality: first.quality,
      cost: first.cost,
      cost_save: costSave(sweep.points, best),
      cost_save_known_costs: costSave(knownCostCurve(sweep.estimates, table, maxCost), best),
      aiq: aiq(sweep.points, { cheapest, maxCost }),
      ...(table.pool.length === 2 ? pairMetrics(table, singles, sweep) : {}),
      curve: sweep.points.map((p) => ({ cost_weight: p.costWeight, quality: p.quality, cost: p.cost })),
    };
    sweeps.set(contender.name, sweep);
    routers.set(contender.name, router);
    options.onTimed?.(contender.name, { train: seconds(started, trained), evaluate: seconds(trained, performance.now()) });
  }
  const report = {
    pool: [...table.pool],
    prompts: { train: options.train.length, test: options.test.length },
    best_single: best,
    cheapest_single: cheapest,
    single_models: singles,
    routers: reports,
  };
  return { report, table, sweeps, routers };
}

function pairMetrics(table: TestTable, singles: readonly SingleModel[], sweep: Sweep): { apgr: number | null; cpt50: number | null } {
  const { strong, weak } = strongAndWeak(singles);
  const metrics = twoModelMetrics(
    table.lines.map((line, i) => ({
      id: line.id,
      preference: sweep.estimates[i][strong].quality - sweep.estimates[i][weak].quality,
      strongOutcome: table.outcomes[i][strong],
      weakOutcome: table.outcomes[i][weak],
    })),
  );
  return { apgr: metrics?.apgr ?? null, cpt50: metrics?.cpt50 ?? null };
}
