import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { evaluateSelection, type Mistake, timePerPrompt } from './evaluation/evaluate';
import { readLabelledPrompts } from './evaluation/labelled-set';
import { CLASSIFIED_PLUGINS, type Figures, type SplitFigures } from './evaluation/metrics';

const FIXTURES = resolve(__dirname, '../../test/fixtures/plugin-selection');
const DEFAULT_SET = resolve(FIXTURES, 'prompts.jsonl');
/** Prompts written after the cues were frozen and scored once: the least flattering, most honest figure. */
const DEFAULT_UNSEEN = resolve(FIXTURES, 'prompts-unseen.jsonl');

interface EvalOptions {
  set: string;
  unseen: string | false;
  rounds: number;
  json?: boolean;
  mistakes?: 'dev' | 'test';
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

function row(name: string, f: Figures): string {
  return `| ${name} | ${f.support} | ${pct(f.precision)} | ${pct(f.recall)} | ${pct(f.f1)} | ${f.falsePositives} | ${f.falseNegatives} |`;
}

/** A Markdown table of one split, ready for `docs/plugins/auto-tools-selection.md`. */
export function splitTable(name: string, figures: SplitFigures): string {
  const header = `**${name}** (${figures.prompts} prompts, exact set match ${pct(figures.exactMatch)})\n\n| plugin | positives | precision | recall | F1 | false pos. | false neg. |\n|---|---|---|---|---|---|---|`;
  const rows = CLASSIFIED_PLUGINS.map((p) => row(p, figures.perPlugin[p]));
  return [header, ...rows, row('micro average', figures.micro)].join('\n');
}

function mistakeLine(m: Mistake): string {
  const chosen = m.chosen.map((s) => `${s.plugin} ${s.score} ${s.reason}`).join('; ') || 'nothing';
  return `- ${JSON.stringify(m.text)}${m.files.length ? ` files=${m.files.join(',')}` : ''}\n  expected: ${m.expected.join(', ') || 'nothing'}\n  chosen:   ${chosen}`;
}

function run(options: EvalOptions): void {
  const prompts = readLabelledPrompts(options.set);
  const evaluation = evaluateSelection(prompts);
  const microseconds = timePerPrompt(prompts, options.rounds);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ set: options.set, dev: evaluation.dev, test: evaluation.test, microsecondsPerPrompt: microseconds })}\n`);
  } else {
    const tables = [splitTable('test split (held out)', evaluation.test), splitTable('dev split (tuned on)', evaluation.dev)];
    if (options.unseen) tables.push(splitTable('unseen set (written after the cues were frozen)', evaluateSelection(readLabelledPrompts(options.unseen)).test));
    process.stdout.write(
      `${tables.join('\n\n')}\n\nCPU time per prompt: ${microseconds.toFixed(1)} µs (mean over ${options.rounds} passes of ${prompts.length} prompts)\n`,
    );
  }
  if (options.mistakes) process.stderr.write(`\nMistakes on ${options.mistakes}:\n${evaluation.mistakes[options.mistakes].map(mistakeLine).join('\n')}\n`);
}

function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

function split(value: string): 'dev' | 'test' {
  if (value !== 'dev' && value !== 'test') throw new InvalidArgumentError("expected 'dev' or 'test'");
  return value;
}

export const evalProgram = new Command('plugins:eval')
  .description('Scores plugin pre-selection on the labelled prompts: precision, recall and F1 per plugin on the dev and test splits, and time per prompt.')
  .option('--set <file>', 'labelled prompts (JSONL)', DEFAULT_SET)
  .option('--unseen <file>', 'a second held-out set, all `test`, printed as a third table', DEFAULT_UNSEEN)
  .option('--no-unseen', 'leave the second held-out set out')
  .option('--rounds <n>', 'passes through the set when timing', wholeNumber, 200)
  .option('--json', 'print one JSON object instead of Markdown tables')
  .option('--mistakes <split>', "list the prompts of 'dev' or 'test' whose chosen plugins differ from the expected ones (on stderr)", split)
  .action((options: EvalOptions) => run(options));

if (require.main === module) evalProgram.parse(process.argv);
