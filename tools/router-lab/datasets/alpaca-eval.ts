import path from 'node:path';
import { z } from 'zod';
import type { LabelledPrompt } from '../evaluation/labelled-prompt';
import { tokensFromChars } from './completion-estimate';
import { readJsonlWith } from './jsonl';
import { modelCell, readModelTable, wholeNumberCell } from './model-table';

const instructionSchema = z.object({
  idx: z.number().int().nonnegative(),
  instruction: z.string(),
  dataset: z.string().min(1).optional(),
});

/** An entry built to game the judge, not a model (see the data's README). */
const LEFT_OUT_MODELS = new Set(['NullModel']);
/** The judge's preference runs from 1 (the reference, gpt4_1106_preview, is better) to 2 (the model is). */
const PREFERENCE_MIN = 1;
const PREFERENCE_MAX = 2;
/** Decimal places kept of `preference - 1`: the file carries 10, so more would only be float noise. */
const OUTCOME_DECIMALS = 1e10;

/**
 * AlpacaEval 2 (`alpaca_eval_compact/`): one line per instruction in `instructions.jsonl` order, id
 * `alpaca-eval-<idx>`, outcome = weighted GPT-4-turbo preference − 1 (the probability the model beats
 * gpt4_1106_preview), `completion_tokens` from `output_chars.csv` (chars / 4), category = the
 * instruction's source `dataset`. The NullModel column and empty cells are left out.
 */
export function convertAlpacaEval(dataDir: string): LabelledPrompt[] {
  const dir = path.join(dataDir, 'alpaca_eval_compact');
  const instructions = readJsonlWith(path.join(dir, 'instructions.jsonl'), instructionSchema);
  const preferences = readModelTable(path.join(dir, 'preference_vs_gpt4turbo.csv'), ['idx']);
  const chars = readModelTable(path.join(dir, 'output_chars.csv'), ['idx']);
  const lines: LabelledPrompt[] = [];
  for (const instruction of instructions) {
    const idx = String(instruction.idx);
    const row = preferences.rows.get(idx);
    if (!row) continue;
    const outcomes: Record<string, number> = {};
    const completionTokens: Record<string, number> = {};
    preferences.models.forEach((model, m) => {
      if (LEFT_OUT_MODELS.has(model) || row[m] === '') return;
      outcomes[model] = outcomeOf(row[m], `preference_vs_gpt4turbo.csv idx ${idx}, ${model}`);
      const length = modelCell(chars, idx, model);
      if (length) completionTokens[model] = tokensFromChars(wholeNumberCell(length, `output_chars.csv idx ${idx}, ${model}`));
    });
    if (Object.keys(outcomes).length === 0) continue;
    lines.push({
      id: `alpaca-eval-${idx}`,
      prompt: instruction.instruction,
      ...(instruction.dataset ? { category: instruction.dataset } : {}),
      outcomes,
      ...(Object.keys(completionTokens).length > 0 ? { completion_tokens: completionTokens } : {}),
    });
  }
  return lines;
}

function outcomeOf(cell: string, source: string): number {
  const preference = Number(cell);
  if (!Number.isFinite(preference) || preference < PREFERENCE_MIN || preference > PREFERENCE_MAX) {
    throw new Error(`${source}: expected a preference from ${PREFERENCE_MIN} to ${PREFERENCE_MAX}, found '${cell}'.`);
  }
  return Math.round((preference - PREFERENCE_MIN) * OUTCOME_DECIMALS) / OUTCOME_DECIMALS;
}
