import path from 'node:path';
import type { LabelledPrompt } from '../evaluation/labelled-prompt';
import { charCount, tokensFromChars } from './completion-estimate';
import { contaminatedPrompts, type ContaminationOptions } from './contamination';
import { columnIndex, readCsvTable } from './csv';
import { routellmBoolean, routellmModelName } from './routellm-models';

/** Suffix of the columns holding each model's full response; the bare model column holds its correctness. */
const RESPONSE_SUFFIX = '_response';

/**
 * RouteLLM's GSM8K set (`routellm_2model/gsm8k__gsm8k_responses.csv`, columns `prompt,<model>...,<model>_response...`):
 * one line per row in file order, id `routellm-gsm8k-<row>` (data rows from 0), category `math`,
 * outcomes from the True/False columns, `completion_tokens` = response characters / 4. Prompts listed in
 * `gsm8k__contaminated_prompts.jsonl` (exact text) are left out unless `keepContaminated`.
 */
export function convertRoutellmGsm8k(dataDir: string, options: ContaminationOptions = {}): LabelledPrompt[] {
  const base = path.join(dataDir, 'routellm_2model');
  const file = path.join(base, 'gsm8k__gsm8k_responses.csv');
  const contaminated = options.keepContaminated ? new Set<string>() : contaminatedPrompts(path.join(base, 'gsm8k__contaminated_prompts.jsonl'));
  const table = readCsvTable(file);
  if (table.header[0] !== 'prompt') throw new Error(`${file}: the first column must be 'prompt', found '${table.header[0]}'.`);
  const columns = table.header.slice(1).filter((name) => !name.endsWith(RESPONSE_SUFFIX));
  if (columns.length === 0) throw new Error(`${file}: no model columns.`);
  const models = columns.map((name) => ({
    name: routellmModelName(name, file),
    column: name,
    correct: columnIndex(table, name, file),
    response: columnIndex(table, `${name}${RESPONSE_SUFFIX}`, file),
  }));
  if (models.length * 2 + 1 !== table.header.length) throw new Error(`${file}: unexpected columns '${table.header.join(',')}'.`);
  const lines: LabelledPrompt[] = [];
  table.rows.forEach((row, n) => {
    const prompt = row[0];
    if (contaminated.has(prompt)) return;
    const outcomes: Record<string, number> = {};
    const completionTokens: Record<string, number> = {};
    for (const model of models) {
      outcomes[model.name] = routellmBoolean(row[model.correct], `${file}: data row ${n + 1}, ${model.column}`);
      completionTokens[model.name] = tokensFromChars(charCount(row[model.response]));
    }
    lines.push({ id: `routellm-gsm8k-${n}`, prompt, category: 'math', outcomes, completion_tokens: completionTokens });
  });
  return lines;
}
