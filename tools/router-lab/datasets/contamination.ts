import { z } from 'zod';
import { readJsonlWith } from './jsonl';

/** One line of RouteLLM's `*_contaminated_prompts.jsonl`: an evaluation prompt that overlaps its training data. */
const contaminatedSchema = z.object({
  train_prompt: z.string(),
  eval_prompt: z.string(),
  train_idx: z.number().int(),
  eval_idx: z.number().int(),
});

/**
 * The evaluation prompts (exact text) that RouteLLM found in its own training data; leave them out
 * when comparing with the RouteLLM paper.
 */
export function contaminatedPrompts(file: string): Set<string> {
  return new Set(readJsonlWith(file, contaminatedSchema).map((line) => line.eval_prompt));
}

/** Whether to keep prompts RouteLLM lists as contaminated (left out by default). */
export interface ContaminationOptions {
  keepContaminated?: boolean;
}
