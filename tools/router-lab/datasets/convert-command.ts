import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import type { CliOutput } from '../../../src/cli/context';
import { parseNameList, parseWholeNumber } from '../../../src/cli/options';
import type { LabelledPrompt } from '../evaluation/labelled-prompt';
import { convertDataset, DATASETS, type DatasetName, modelsOf, restrictModels, splitFolds, writeJsonl } from './index';

interface ConvertOptions {
  set: DatasetName | 'all';
  out: string;
  data: string;
  folds?: number;
  seed?: number;
  models?: string[];
  keepContaminated?: boolean;
}

function buildConvertProgram(io: CliOutput, run: (options: ConvertOptions) => void): Command {
  return new Command('router:convert')
    .description('Converts the shared routing sets to the router evaluation format (JSONL), optionally with cross-validation folds.')
    .addOption(new Option('--set <name>', 'the set to convert, or all').choices([...DATASETS, 'all']).makeOptionMandatory())
    .option('--out <dir>', 'folder to write <set>.jsonl (and the folds) to', 'build/routing-data')
    .option('--data <dir>', 'folder holding the routing sets', 'tools/router-lab/data/routing')
    .option('--folds <k>', 'also write K cross-validation folds, <set>.fold<k>.train.jsonl / .test.jsonl (k from 1)', parseWholeNumber)
    .option('--seed <n>', 'seed of the fold shuffle (default 0)', parseWholeNumber)
    .option('--models <a,b,c>', 'keep only these models in the test folds (the train folds keep every model)', parseNameList)
    .option('--keep-contaminated', 'keep the prompts RouteLLM lists as contaminated (left out by default)')
    .configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text) })
    .exitOverride()
    .action((options: ConvertOptions) => run(options));
}

/** Runs `router:convert` on `argv` (the arguments after the script) and answers the exit code. */
export function runConvert(argv: readonly string[], io: CliOutput, cwd: string): number {
  try {
    buildConvertProgram(io, (options) => convert(options, io, cwd)).parse([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    // Commander has already printed its own usage errors and help; anything else is ours to describe.
    if (err instanceof CommanderError) return err.exitCode;
    io.err(`${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

function convert(options: ConvertOptions, io: CliOutput, cwd: string): void {
  if (options.folds === undefined && (options.seed !== undefined || options.models !== undefined)) {
    throw new Error('--seed and --models apply to the folds: give --folds too.');
  }
  const dataDir = path.resolve(cwd, options.data);
  const outDir = path.resolve(cwd, options.out);
  const sets = options.set === 'all' ? DATASETS : [options.set];
  const write = (file: string, lines: readonly LabelledPrompt[]) => {
    writeJsonl(path.join(outDir, file), lines);
    // The path as the user gave --out, so the summary can be pasted into the next command.
    io.out(`${JSON.stringify({ file: path.join(options.out, file), lines: lines.length, models: modelsOf(lines).length })}\n`);
  };
  for (const set of sets) {
    const lines = convertDataset(set, dataDir, { keepContaminated: options.keepContaminated });
    const pool = options.models;
    if (pool) {
      const known = new Set(modelsOf(lines));
      const unknown = pool.filter((model) => !known.has(model));
      if (unknown.length > 0) throw new Error(`${set}: no outcomes for ${unknown.join(', ')} (models: ${[...known].join(', ')}).`);
    }
    write(`${set}.jsonl`, lines);
    if (options.folds === undefined) continue;
    splitFolds(lines, options.folds, options.seed ?? 0).forEach((fold, k) => {
      write(`${set}.fold${k + 1}.train.jsonl`, fold.train);
      write(`${set}.fold${k + 1}.test.jsonl`, pool ? restrictModels(fold.test, pool) : fold.test);
    });
  }
}
