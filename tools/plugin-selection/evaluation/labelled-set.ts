import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PLUGIN_IDS } from '../../../src/schemas/assistants';

/** One line of `test/fixtures/plugin-selection/prompts.jsonl`. */
export const labelledPromptSchema = z.strictObject({
  text: z.string(),
  files: z.array(z.string()),
  images: z.array(z.string()).default([]),
  space_has_files: z.boolean(),
  /** The plugins the request needs, with every plugin allowed. */
  plugins: z.array(z.enum(PLUGIN_IDS)),
  /** `dev` is what the cues were tuned on; `test` is held out and reported. */
  split: z.enum(['dev', 'test']),
});

export type LabelledPrompt = z.infer<typeof labelledPromptSchema>;

/** Reads a JSONL file of labelled prompts, naming the line of the first bad one. */
export function readLabelledPrompts(path: string): LabelledPrompt[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const prompts: LabelledPrompt[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const parsed = labelledPromptSchema.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`${path}:${i + 1}: ${parsed.error.message}`);
    prompts.push(parsed.data);
  });
  return prompts;
}
