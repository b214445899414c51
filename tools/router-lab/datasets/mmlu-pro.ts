import path from 'node:path';
import { z } from 'zod';
import type { LabelledPrompt } from '../evaluation/labelled-prompt';
import { tokensFromChars } from './completion-estimate';
import { readJsonlWith } from './jsonl';
import { modelCell, readModelTable, wholeNumberCell } from './model-table';

const questionSchema = z.object({
  question_id: z.number().int(),
  question: z.string(),
  options: z.array(z.string()).min(1).max(10),
  category: z.string().min(1),
});

const OPTION_LETTERS = 'ABCDEFGHIJ';
/** Columns of `correct.csv` and `output_chars.csv` before the one-per-model columns. */
const LEADING_COLUMNS = ['question_id', 'category'];

/** The question, then its options one a line as `A. ...`; no `Answer:` cue. */
export function mmluProPrompt(question: string, options: readonly string[]): string {
  return [question, ...options.map((option, i) => `${OPTION_LETTERS[i]}. ${option}`)].join('\n');
}

/**
 * MMLU-Pro (`mmlu_pro/`): one line per question in `questions.jsonl` order, id `mmlu-pro-<question_id>`,
 * `outcomes` from every non-empty `correct.csv` cell (1/0), `completion_tokens` from `output_chars.csv`
 * (chars / 4) for the models with an outcome. Questions no model answered are left out.
 */
export function convertMmluPro(dataDir: string): LabelledPrompt[] {
  const dir = path.join(dataDir, 'mmlu_pro');
  const questions = readJsonlWith(path.join(dir, 'questions.jsonl'), questionSchema);
  const correct = readModelTable(path.join(dir, 'correct.csv'), LEADING_COLUMNS);
  const chars = readModelTable(path.join(dir, 'output_chars.csv'), LEADING_COLUMNS);
  const lines: LabelledPrompt[] = [];
  for (const question of questions) {
    const id = String(question.question_id);
    const results = correct.rows.get(id);
    if (!results) continue;
    const outcomes: Record<string, number> = {};
    const completionTokens: Record<string, number> = {};
    correct.models.forEach((model, m) => {
      const cell = results[m];
      if (cell === '') return;
      outcomes[model] = binaryCell(cell, `correct.csv question ${id}, ${model}`);
      const length = modelCell(chars, id, model);
      if (length) completionTokens[model] = tokensFromChars(wholeNumberCell(length, `output_chars.csv question ${id}, ${model}`));
    });
    if (Object.keys(outcomes).length === 0) continue;
    lines.push({
      id: `mmlu-pro-${id}`,
      prompt: mmluProPrompt(question.question, question.options),
      category: question.category,
      outcomes,
      ...(Object.keys(completionTokens).length > 0 ? { completion_tokens: completionTokens } : {}),
    });
  }
  return lines;
}

function binaryCell(cell: string, source: string): number {
  if (cell === '1') return 1;
  if (cell === '0') return 0;
  throw new Error(`${source}: expected 1, 0 or empty, found '${cell}'.`);
}
