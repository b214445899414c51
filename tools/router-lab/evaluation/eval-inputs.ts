import { readFileSync, writeFileSync } from 'node:fs';
import { convertDataset, modelsOf, type DatasetName } from '../datasets/index';
import { readJsonl } from '../datasets/jsonl';
import { priceTableSchema, type LabelledPrompt, type PriceTable } from './labelled-prompt';

/** A mistake in what the user gave the evaluation commands: reported in one line, exit code 2. */
export class EvalInputError extends Error {}

/** The labelled lines of a JSONL file; an unreadable file or an invalid line names the file, line and field. */
export function readLabelledFile(file: string): LabelledPrompt[] {
  let lines: LabelledPrompt[];
  try {
    lines = readJsonl(file);
  } catch (err) {
    throw new EvalInputError(describe(err, file));
  }
  if (lines.length === 0) throw new EvalInputError(`${file}: no labelled lines.`);
  return lines;
}

/** One of the shared sets as evaluation lines; a missing or broken data folder is the user's to fix. */
export function readSharedSet(set: DatasetName, dataDir: string): LabelledPrompt[] {
  try {
    return convertDataset(set, dataDir);
  } catch (err) {
    throw new EvalInputError(`Cannot read the set '${set}' from ${dataDir}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Every one of `models` has outcomes somewhere in `lines`; otherwise the user is told which have none. */
export function checkModelsKnown(lines: readonly LabelledPrompt[], models: readonly string[]): void {
  const known = new Set(modelsOf([...lines]));
  const unknown = models.filter((model) => !known.has(model));
  if (unknown.length > 0) throw new EvalInputError(`No outcomes for ${unknown.join(', ')} in this set (it has ${[...known].join(', ')}).`);
}

/** `--folds` splits `lineCount` lines: a whole number from 2 to the number of lines. */
export function checkFolds(folds: number, lineCount: number): void {
  if (!Number.isInteger(folds) || folds < 2 || folds > lineCount) {
    throw new EvalInputError(`--folds must be between 2 and the number of lines (${lineCount}), not ${folds}.`);
  }
}

/** The errno code of a file system error (`ENOENT`, `EACCES`, ...), if it is one. */
function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

function describe(err: unknown, file: string): string {
  const code = errnoCode(err);
  if (code === 'ENOENT') return `${file}: no such file.`;
  if (code !== undefined) return `${file}: cannot be read (${code}).`;
  return err instanceof Error ? err.message : String(err);
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new EvalInputError(describe(err, file));
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new EvalInputError(`${file}: not JSON (${err instanceof Error ? err.message : String(err)}).`);
  }
}

/**
 * A price table: the file is either one table `{model: [USD/1M prompt, USD/1M completion]}` or a
 * collection of named tables (like `prices.json`) from which `set` picks one.
 */
export function readPriceTable(file: string, set?: string): PriceTable {
  const json = readJson(file);
  const sets = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  const setNames = Object.keys(sets).filter((name) => priceTableSchema.safeParse(sets[name]).success);
  if (set !== undefined && !setNames.includes(set)) {
    throw new EvalInputError(`${file}: no price set '${set}' (it has ${setNames.length > 0 ? setNames.join(', ') : 'none'}).`);
  }
  const table = set !== undefined ? sets[set] : json;
  const parsed = priceTableSchema.safeParse(table);
  if (parsed.success) return parsed.data;
  if (set === undefined && setNames.length > 0) {
    throw new EvalInputError(`${file} holds several price sets (${setNames.join(', ')}); choose one with --price-set.`);
  }
  const issue = parsed.error.issues[0];
  throw new EvalInputError(`${file}: not a price table: field '${issue.path.map(String).join('.')}': ${issue.message}.`);
}

/**
 * Every pool model must have a cost on every test line, from the line's `cost` or the price table, and
 * an estimated cost for the baselines, from the training lines' `cost` or the price table.
 */
export function checkCosts(options: {
  train: readonly LabelledPrompt[];
  test: readonly LabelledPrompt[];
  pool: readonly string[];
  prices: PriceTable | null;
}): void {
  for (const model of options.pool) {
    if (options.prices?.[model] !== undefined) continue;
    const source = options.prices ? 'the price table has none' : 'no --prices were given';
    const unpriced = options.test.find((line) => line.cost?.[model] === undefined);
    if (unpriced) throw new EvalInputError(`No price for model '${model}': test line '${unpriced.id}' carries no cost for it and ${source}.`);
    if (!options.train.some((line) => line.cost?.[model] !== undefined)) {
      throw new EvalInputError(`No price for model '${model}': no training line carries a cost for it and ${source}.`);
    }
  }
}

/** The pool must not be empty and test ids must be unique, so decisions can be matched to labels. */
export function checkTest(test: readonly LabelledPrompt[], pool: readonly string[], file: string): void {
  const seen = new Set<string>();
  for (const line of test) {
    if (seen.has(line.id)) throw new EvalInputError(`${file}: id '${line.id}' appears twice.`);
    seen.add(line.id);
  }
  if (pool.length === 0) throw new EvalInputError(`${file}: no model has an outcome on every line, so there is nothing to choose from.`);
}

/** Writes a file the user named (`--decisions`, `--out`); failing to is the user's to fix, in one line. */
export function writeUserFile(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (err) {
    throw new EvalInputError(`${file}: cannot be written (${errnoCode(err) ?? String(err)}).`);
  }
}
