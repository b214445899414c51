import path from 'node:path';
import { Command, Option } from 'commander';
import type { CliOutput } from '../../../src/cli/context';
import { DATASETS, type DatasetName } from '../datasets/index';
import { parseNameList, parseWholeNumber } from '../../../src/cli/options';
import { DEFAULT_SEED, runCommand, runFromProcess } from './command-runner';
import { CONTENDERS } from './contenders';
import { crossValidate } from './cross-validation';
import { cvMarkdown } from './cv-table';
import { readPriceTable, readSharedSet, writeUserFile } from './eval-inputs';
import type { PriceTable } from './labelled-prompt';

/** The table of `prices.json` each set's models are priced from when no --prices is given. */
const DEFAULT_PRICE_SETS: Partial<Record<DatasetName, string>> = {
  mmlu_pro: 'mmlu_pro',
  routellm_mmlu: 'routellm_2model',
  routellm_gsm8k: 'routellm_2model',
  mt_bench: 'routellm_2model',
};

interface CvOptions {
  set: DatasetName;
  folds: number;
  seed: number;
  models?: string[];
  prices?: string;
  priceSet?: string;
  data: string;
  out?: string;
}

/** --prices as given, else the set's table in the data folder's `prices.json`. */
function pricesFor(options: CvOptions, dataDir: string): PriceTable | null {
  if (options.prices !== undefined) return readPriceTable(options.prices, options.priceSet);
  const set = options.priceSet ?? DEFAULT_PRICE_SETS[options.set];
  return set !== undefined ? readPriceTable(path.join(dataDir, 'prices.json'), set) : null;
}

/** `--out` and the JSON next to it (`x.md` → `x.json`), claimed before the work so a bad path fails at once. */
function outputFiles(markdown: string): { markdown: string; json: string } {
  const files = { markdown, json: `${markdown.replace(/\.md$/i, '')}.json` };
  writeUserFile(files.markdown, '');
  writeUserFile(files.json, '');
  return files;
}

function runCrossValidation(options: CvOptions, io: CliOutput): void {
  const dataDir = path.resolve(options.data);
  const lines = readSharedSet(options.set, dataDir);
  const prices = pricesFor(options, dataDir);
  const out = options.out !== undefined ? outputFiles(options.out) : null;
  const started = performance.now();
  const results = crossValidate({
    lines,
    folds: options.folds,
    seed: options.seed,
    models: options.models,
    prices,
    contenders: CONTENDERS,
    onTimed: (fold, name, s) => io.err(`fold ${fold} ${name}: trained in ${s.train} s, evaluated in ${s.evaluate} s\n`),
  });
  io.err(`cross-validation took ${Math.round((performance.now() - started) / 100) / 10} s\n`);
  const title = `${options.set}, ${options.folds}-fold cross-validation, seed ${options.seed}`;
  const markdown = cvMarkdown(results, title);
  io.out(markdown);
  if (!out) return;
  writeUserFile(out.markdown, markdown);
  writeUserFile(
    out.json,
    `${JSON.stringify({ set: options.set, folds: options.folds, seed: options.seed, models: options.models ?? null, results }, null, 2)}\n`,
  );
}

export function cvProgram(io: CliOutput): Command {
  return new Command('router:cv')
    .description("K-fold cross-validation of Switchyard's router and the baselines on one of the shared routing sets; prints a Markdown table.")
    .addOption(new Option('--set <name>', 'the shared set').choices([...DATASETS]).makeOptionMandatory())
    .option('--folds <k>', 'number of folds', parseWholeNumber, 5)
    .option('--seed <n>', 'seed of the fold split, the random baseline and the trainers', parseWholeNumber, DEFAULT_SEED)
    .option('--models <a,b,c>', 'the pool; test folds keep only these models, train folds keep all', parseNameList)
    .option('--prices <file>', "price table, or a file of named tables with --price-set (default: the set's table in <data>/prices.json)")
    .option('--price-set <name>', 'which table of the prices file to use')
    .option('--data <dir>', 'folder holding the routing sets', 'tools/router-lab/data/routing')
    .option('--out <file.md>', "also write the table there, and every fold's figures as JSON next to it (.json)")
    .action((options: CvOptions) => runCrossValidation(options, io));
}

/** Runs `router:cv` with these arguments and answers the exit code. */
export function runCvCli(argv: readonly string[], io: CliOutput): Promise<number> {
  return runCommand(cvProgram(io), argv, io);
}

if (require.main === module) runFromProcess(runCvCli);
