import path from 'node:path';
import { z } from 'zod';
import type { LabelledPrompt } from '../evaluation/labelled-prompt';
import { contaminatedPrompts, type ContaminationOptions } from './contamination';
import { readJsonlWith } from './jsonl';
import { routellmModelName } from './routellm-models';

const questionSchema = z.object({
  question_id: z.number().int(),
  category: z.string().min(1),
  turns: z.array(z.string()).min(1),
});

const judgementSchema = z.object({
  question_id: z.number().int(),
  model: z.string().min(1),
  turn: z.number().int().min(1),
  score: z.number(),
});

/** MT-Bench's judge scores run from 1 to 10; FastChat writes -1 when it could not read a score. */
const MAX_SCORE = 10;

/**
 * MT-Bench (`routellm_2model/mt_bench__question.jsonl` and `mt_bench__judgements.jsonl`): one line per
 * question and turn (id `mt-bench-<question_id>-turn<n>`), outcome = GPT-4 judge score / 10 per model
 * judged, category = the question's. The answers of earlier turns are model-dependent and absent, so a
 * turn's prompt is the user turns so far joined by a blank line. A question whose first turn is listed
 * in `mt_bench__contaminated_prompts.jsonl` is left out with all its turns unless `keepContaminated`.
 */
export function convertMtBench(dataDir: string, options: ContaminationOptions = {}): LabelledPrompt[] {
  const base = path.join(dataDir, 'routellm_2model');
  const questions = readJsonlWith(path.join(base, 'mt_bench__question.jsonl'), questionSchema);
  const scores = judgementScores(path.join(base, 'mt_bench__judgements.jsonl'));
  const contaminated = options.keepContaminated ? new Set<string>() : contaminatedPrompts(path.join(base, 'mt_bench__contaminated_prompts.jsonl'));
  const lines: LabelledPrompt[] = [];
  for (const question of questions) {
    if (contaminated.has(question.turns[0])) continue;
    question.turns.forEach((_, t) => {
      const outcomes = scores.get(turnKey(question.question_id, t + 1));
      if (!outcomes) return;
      lines.push({
        id: `mt-bench-${question.question_id}-turn${t + 1}`,
        prompt: question.turns.slice(0, t + 1).join('\n\n'),
        category: question.category,
        outcomes: Object.fromEntries([...outcomes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      });
    });
  }
  return lines;
}

const turnKey = (questionId: number, turn: number) => `${questionId}/${turn}`;

/** `question/turn → model → score / 10`, from the judgements file; unreadable scores (negative) are skipped. */
function judgementScores(file: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  readJsonlWith(file, judgementSchema).forEach((judgement, n) => {
    if (judgement.score < 0) return;
    const where = `${file}: judgement ${n + 1}`;
    if (judgement.score > MAX_SCORE) throw new Error(`${where}: score ${judgement.score} is above ${MAX_SCORE}.`);
    const model = routellmModelName(judgement.model, where);
    const key = turnKey(judgement.question_id, judgement.turn);
    const byModel = out.get(key) ?? new Map<string, number>();
    if (byModel.has(model)) throw new Error(`${where}: question ${judgement.question_id} turn ${judgement.turn} is judged twice for ${model}.`);
    byModel.set(model, judgement.score / MAX_SCORE);
    out.set(key, byModel);
  });
  return out;
}
