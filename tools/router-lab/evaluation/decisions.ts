import { writeUserFile } from './eval-inputs';
import { COST_WEIGHTS, type Sweep } from './sweep';
import type { TestTable } from './test-table';

/** One decision of the router: which model it picked for a test prompt at a cost weight. */
export interface DecisionLine {
  id: string;
  cost_weight: number;
  model: string;
}

/** Every decision of a sweep, cost weight by cost weight, test prompts in file order. */
export function decisionLines(sweep: Sweep, table: TestTable): DecisionLine[] {
  return COST_WEIGHTS.flatMap((costWeight, k) =>
    table.lines.map((line, i) => ({ id: line.id, cost_weight: costWeight, model: table.pool[sweep.choices[k][i]] })),
  );
}

/** Writes the decisions as JSONL, so anyone can recompute every figure from the test labels. */
export function writeDecisions(file: string, lines: readonly DecisionLine[]): void {
  writeUserFile(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}
