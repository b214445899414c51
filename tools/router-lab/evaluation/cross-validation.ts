import { restrictModels, splitFolds } from '../datasets/index';
import { checkCosts, checkFolds, checkModelsKnown, EvalInputError } from './eval-inputs';
import { evaluateRouters, type Contender, type EvaluationReport } from './evaluate';
import type { LabelledPrompt, PriceTable } from './labelled-prompt';
import { evaluationPool } from './test-table';

export interface CrossValidationOptions {
  lines: readonly LabelledPrompt[];
  folds: number;
  seed: number;
  /** The candidates; every model with an outcome on every test line of a fold when absent. */
  models?: readonly string[];
  prices: PriceTable | null;
  contenders: readonly Contender[];
  /** Told how long each router of each fold took, in seconds. */
  onTimed?: (fold: number, name: string, seconds: { train: number; evaluate: number }) => void;
}

export interface FoldResult {
  /** From 1. */
  fold: number;
  /** Test lines left out of the fold because they lack an outcome for one of `models`. */
  dropped: number;
  report: EvaluationReport;
}

/**
 * K-fold cross-validation: each fold trains every contender on the other folds' lines with ALL their
 * models, and tests on its own lines restricted to `models`; test lines lacking one of `models` are left
 * out (and counted) so that the pool is exactly `models`.
 */
export function crossValidate(options: CrossValidationOptions): FoldResult[] {
  const models = options.models;
  if (models) checkModelsKnown(options.lines, models);
  checkFolds(options.folds, options.lines.length);
  return splitFolds(options.lines, options.folds, options.seed).map((fold, k) => {
    const restricted = models ? restrictModels(fold.test, models).filter((line) => models.every((m) => line.outcomes[m] !== undefined)) : fold.test;
    const pool = evaluationPool(restricted);
    if (pool.length === 0) throw new EvalInputError(`Fold ${k + 1}: no model has an outcome on every test line; choose a pool with --models.`);
    checkCosts({ train: fold.train, test: restricted, pool, prices: options.prices });
    const { report } = evaluateRouters({
      train: fold.train,
      test: restricted,
      pool,
      prices: options.prices,
      seed: options.seed,
      contenders: options.contenders,
      onTimed: (name, seconds) => options.onTimed?.(k + 1, name, seconds),
    });
    return { fold: k + 1, dropped: fold.test.length - restricted.length, report };
  });
}
