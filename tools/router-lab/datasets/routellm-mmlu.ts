import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { LabelledPrompt } from '../evaluation/labelled-prompt';
import { contaminatedPrompts, type ContaminationOptions } from './contamination';
import { readCsvTable } from './csv';
import { routellmBoolean, routellmModelName } from './routellm-models';

const SUBJECT_FILE = /^mmlu_(.+)\.csv$/;

/**
 * RouteLLM's MMLU set (`routellm_2model/mmlu_responses/mmlu_<subject>.csv`, columns `prompt,<weak>,<strong>`):
 * one line per row, subjects in name order, rows in file order; id `routellm-mmlu-<subject>-<row>` with the
 * row counted from 0 among the data rows. The set has no completion lengths, so lines carry no
 * `completion_tokens`: costs then count prompt tokens only, while RouteLLM's own cost axis is the share
 * of calls routed to the strong model. Prompts listed in `mmlu__contaminated_prompts.jsonl` (exact text)
 * are left out unless `keepContaminated`.
 */
export function convertRoutellmMmlu(dataDir: string, options: ContaminationOptions = {}): LabelledPrompt[] {
  const base = path.join(dataDir, 'routellm_2model');
  const dir = path.join(base, 'mmlu_responses');
  const contaminated = options.keepContaminated ? new Set<string>() : contaminatedPrompts(path.join(base, 'mmlu__contaminated_prompts.jsonl'));
  const files = readdirSync(dir)
    .filter((name) => SUBJECT_FILE.test(name))
    .sort();
  if (files.length === 0) throw new Error(`${dir}: no mmlu_<subject>.csv files.`);
  return files.flatMap((file) => convertSubject(path.join(dir, file), contaminated));
}

function convertSubject(file: string, contaminated: ReadonlySet<string>): LabelledPrompt[] {
  const subject = SUBJECT_FILE.exec(path.basename(file))?.[1] ?? '';
  const table = readCsvTable(file);
  const [first, ...modelColumns] = table.header;
  if (first !== 'prompt' || modelColumns.length !== 2) {
    throw new Error(`${file}: expected the header 'prompt,<weak model>,<strong model>', found '${table.header.join(',')}'.`);
  }
  const models = modelColumns.map((name) => routellmModelName(name, file));
  const lines: LabelledPrompt[] = [];
  table.rows.forEach((row, n) => {
    const prompt = row[0];
    if (contaminated.has(prompt)) return;
    const outcomes: Record<string, number> = {};
    models.forEach((model, m) => {
      outcomes[model] = routellmBoolean(row[m + 1], `${file}: data row ${n + 1}, ${modelColumns[m]}`);
    });
    lines.push({ id: `routellm-mmlu-${subject}-${n}`, prompt, category: subject, outcomes });
  });
  return lines;
}
