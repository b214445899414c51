import { Command } from 'commander';
import type { CliOutput } from '../../../src/cli/context';
import { parseWholeNumber } from '../../../src/cli/options';
import { DEFAULT_SEED, runCommand, runFromProcess } from './command-runner';
import { CONTENDERS, SWITCHYARD } from './contenders';
import { decisionLines, writeDecisions } from './decisions';
import { checkCosts, checkTest, readLabelledFile, readPriceTable, writeUserFile } from './eval-inputs';
import { evaluateRouters } from './evaluate';
import type { LabelledPrompt } from './labelled-prompt';
import { replayEvaluation } from './replay';
import { evaluationPool } from './test-table';

interface EvalOptions {
  train: string;
  test: string;
  prices?: string;
  priceSet?: string;
  decisions?: string;
  seed: number;
}

/** Models some test lines lack are not candidates (see `evaluationPool`): say which, so it is no surprise. */
function reportLeftOut(test: readonly LabelledPrompt[], pool: readonly string[], io: CliOutput): void {
  const inPool = new Set(pool);
  const leftOut = [...new Set(test.flatMap((line) => Object.keys(line.outcomes)))].filter((model) => !inPool.has(model)).sort();
  if (leftOut.length > 0) io.err(`pool: ${pool.join(', ')}; left out (no outcome on some test lines): ${leftOut.join(', ')}\n`);
}

function evaluateFiles(options: EvalOptions, io: CliOutput): void {
  const train = readLabelledFile(options.train);
  const test = readLabelledFile(options.test);
  const prices = options.prices !== undefined ? readPriceTable(options.prices, options.priceSet) : null;
  // Claimed before the work, so an unwritable path fails in a second rather than after the evaluation.
  if (options.decisions !== undefined) writeUserFile(options.decisions, '');
  const pool = evaluationPool(test);
  checkTest(test, pool, options.test);
  reportLeftOut(test, pool, io);
  checkCosts({ train, test, pool, prices });
  const evaluation = evaluateRouters({
    train,
    test,
    pool,
    prices,
    seed: options.seed,
    contenders: CONTENDERS,
    onTimed: (name, s) => io.err(`${name}: trained in ${s.train} s, evaluated in ${s.evaluate} s\n`),
  });
  const [sweep, router] = [evaluation.sweeps.get(SWITCHYARD), evaluation.routers.get(SWITCHYARD)];
  if (!sweep || !router) throw new Error(`The contenders lack '${SWITCHYARD}'.`);
  if (options.decisions !== undefined) writeDecisions(options.decisions, decisionLines(sweep, evaluation.table));
  const started = performance.now();
  const replay = replayEvaluation({ router, test, pool, prices, seed: options.seed });
  io.err(`replay took ${Math.round((performance.now() - started) / 10) / 100} s\n`);
  io.out(`${JSON.stringify({ train: options.train, test: options.test, seed: options.seed, ...evaluation.report, replay })}\n`);
}

export function evalProgram(io: CliOutput): Command {
  return new Command('router:eval')
    .description(
      "Trains Switchyard's router and the baselines on --train, scores them on --test (JSONL, one labelled prompt a line) " +
        'and prints one JSON object. Through npm, use `npm run -s router:eval -- ...` so npm adds nothing to stdout.',
    )
    .requiredOption('--train <file>', 'labelled prompts the routers learn from')
    .requiredOption('--test <file>', 'labelled prompts the routers are scored on')
    .option('--prices <file>', 'price table {model: [USD/1M prompt, USD/1M completion]}, or a file of named tables with --price-set')
    .option('--price-set <name>', 'which table of --prices to use (e.g. mmlu_pro in prices.json)')
    .option('--decisions <file>', 'write {"id", "cost_weight", "model"} per test prompt and cost weight (our router)')
    .option('--seed <n>', 'seed of the random baseline and the trainers', parseWholeNumber, DEFAULT_SEED)
    .action((options: EvalOptions) => evaluateFiles(options, io));
}

/** Runs `router:eval` with these arguments and answers the exit code. */
export function runEvalCli(argv: readonly string[], io: CliOutput): Promise<number> {
  return runCommand(evalProgram(io), argv, io);
}

if (require.main === module) runFromProcess(runEvalCli);
