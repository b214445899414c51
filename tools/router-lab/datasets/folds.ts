import type { LabelledPrompt } from '../evaluation/labelled-prompt';
import { seededShuffle } from './seeded-random';

export interface Fold {
  train: LabelledPrompt[];
  test: LabelledPrompt[];
}

/**
 * K-fold cross-validation splits: the lines are shuffled with `seed` and dealt round-robin into `folds`
 * test sets, so the test sets partition the lines and differ in size by at most one; each fold trains on
 * every other line. Within a file, lines keep their original order. Same lines and seed, same folds.
 */
export function splitFolds(lines: readonly LabelledPrompt[], folds: number, seed: number): Fold[] {
  if (!Number.isInteger(folds) || folds < 2) throw new Error(`Folds must be a whole number of at least 2, not ${folds}.`);
  if (folds > lines.length) throw new Error(`Cannot split ${lines.length} lines into ${folds} folds.`);
  const foldOf = new Array<number>(lines.length);
  seededShuffle(
    lines.map((_, i) => i),
    seed,
  ).forEach((line, position) => {
    foldOf[line] = position % folds;
  });
  return Array.from({ length: folds }, (_, k) => ({
    train: lines.filter((_, i) => foldOf[i] !== k),
    test: lines.filter((_, i) => foldOf[i] === k),
  }));
}
