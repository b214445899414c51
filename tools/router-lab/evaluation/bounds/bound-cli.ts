import path from 'node:path';
import { Command, Option } from 'commander';
import type { CliOutput } from '../../../../src/cli/context';
import { parseNameList, parseWholeNumber } from '../../../../src/cli/options';
import { DATASETS, modelsOf, splitFolds, type DatasetName } from '../../datasets/index';
import { DEFAULT_SEED, runCommand, runFromProcess } from '../command-runner';
import { checkFolds, checkModelsKnown, EvalInputError, readSharedSet } from '../eval-inputs';
import { spread } from '../cv-table';
import { informedBound } from './informed-bound';

interface BoundOptions {
  set: DatasetName;
  models: string[];
  folds: number;
  seed: number;
  data: string;
}

/** The informed bound on every fold of the split `router:cv` uses (same set, folds and seed), as JSON. */
function runBound(options: BoundOptions, io: CliOutput): void {
  const lines = readSharedSet(options.set, path.resolve(options.data));
  checkModelsKnown(lines, options.models);
  checkFolds(options.folds, lines.length);
  if (modelsOf(lines).every((model) => options.models.includes(model))) {
    throw new EvalInputError(`The set has no models outside the pool, so there is nothing to inform the bound.`);
  }
  const folds = splitFolds(lines, options.folds, options.seed).map((fold, k) => ({ fold: k + 1, ...informedBound(fold.train, fold.test, options.models) }));
  const summary = (values: number[]) => {
    const s = spread(values);
    return s && { mean: s.mean, sd: s.sd };
  };
  const report = {
    set: options.set,
    pool: options.models,
    folds: options.folds,
    seed: options.seed,
    informants: folds[0].informants,
    quality: summary(folds.map((f) => f.quality)),
    best_single_quality: summary(folds.map((f) => f.bestSingleQuality)),
    per_fold: folds.map(({ fold, lines: scored, quality, bestSingleQuality }) => ({ fold, lines: scored, quality, best_single_quality: bestSingleQuality })),
  };
  io.out(`${JSON.stringify(report, null, 2)}\n`);
}

export function boundProgram(io: CliOutput): Command {
  return new Command('router:bound')
    .description(
      "The informed bound: the quality at quality-only weights of a picker that knows each prompt's category and every model outside the pool's outcome on it — a ceiling for routers that only read the prompt.",
    )
    .addOption(new Option('--set <name>', 'the shared set (it must carry models outside the pool)').choices([...DATASETS]).makeOptionMandatory())
    .requiredOption('--models <a,b,c>', 'the pool', parseNameList)
    .option('--folds <k>', 'number of folds', parseWholeNumber, 5)
    .option('--seed <n>', 'seed of the fold split', parseWholeNumber, DEFAULT_SEED)
    .option('--data <dir>', 'folder holding the routing sets', 'tools/router-lab/data/routing')
    .action((options: BoundOptions) => runBound(options, io));
}

/** Runs `router:bound` with these arguments and answers the exit code. */
export function runBoundCli(argv: readonly string[], io: CliOutput): Promise<number> {
  return runCommand(boundProgram(io), argv, io);
}

if (require.main === module) runFromProcess(runBoundCli);
