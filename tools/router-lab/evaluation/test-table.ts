import { actualCost } from './costs';
import type { LabelledPrompt, PriceTable } from './labelled-prompt';

/**
 * The test file's labels for the pool, read once: what each model scored on each prompt and what it
 * cost. Every router is scored from this table, so all of them see the same figures.
 */
export interface TestTable {
  lines: readonly LabelledPrompt[];
  pool: readonly string[];
  /** `outcomes[prompt][model]`, 0 to 1, models in pool order. */
  outcomes: number[][];
  /** `costs[prompt][model]`, USD of answering the prompt with the model. */
  costs: number[][];
}

/**
 * The pool: the models that have an outcome on every test line (the intersection over the file),
 * sorted by name. A router can only be scored on a choice whose outcome is known, and a fixed set keeps
 * every test prompt's candidates the same, so the models some lines lack are left out of the pool.
 */
export function evaluationPool(test: readonly LabelledPrompt[]): string[] {
  if (test.length === 0) return [];
  let pool = new Set(Object.keys(test[0].outcomes));
  for (const line of test) pool = new Set([...pool].filter((model) => line.outcomes[model] !== undefined));
  return [...pool].sort((a, b) => a.localeCompare(b));
}

/** The table of the pool's labels; every test line must have an outcome for every pool model. */
export function buildTestTable(test: readonly LabelledPrompt[], pool: readonly string[], prices: PriceTable | null): TestTable {
  return {
    lines: test,
    pool,
    outcomes: test.map((line) => pool.map((model) => outcomeOf(line, model))),
    costs: test.map((line) => pool.map((model) => actualCost(line, model, prices))),
  };
}

function outcomeOf(line: LabelledPrompt, model: string): number {
  const outcome = line.outcomes[model];
  if (outcome === undefined) throw new Error(`Line '${line.id}' has no outcome for '${model}', a model of the pool.`);
  return outcome;
}

/** A model's (or a router's) mean outcome and mean USD per prompt on the test set. */
export interface CostQuality {
  quality: number;
  /** Mean USD per prompt. */
  cost: number;
}

export interface SingleModel extends CostQuality {
  model: string;
}

/** What each pool model alone scores on the test set, in pool order. */
export function singleModels(table: TestTable): SingleModel[] {
  return table.pool.map((model, m) => meanOf(table, () => m, model));
}

/** Mean outcome and cost over the test prompts of the model `pick(i)` (a pool index) on prompt i. */
export function meanOf(table: TestTable, pick: (prompt: number) => number, model = ''): SingleModel {
  let quality = 0;
  let cost = 0;
  for (let i = 0; i < table.lines.length; i++) {
    const m = pick(i);
    quality += table.outcomes[i][m];
    cost += table.costs[i][m];
  }
  const n = table.lines.length || 1;
  return { model, quality: quality / n, cost: cost / n };
}
