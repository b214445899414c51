import { PLUGIN_IDS } from '../../../src/schemas/assistants';
import { selectPlugins } from '../../../src/plugins/selection/select-plugins';
import type { Selection } from '../../../src/plugins/selection/types';
import type { LabelledPrompt } from './labelled-set';
import { type Outcome, type SplitFigures, splitFigures } from './metrics';

/** The day the labelled set was written: "this year" and "recent years" in its prompts count from it. */
export const LABELLED_SET_DATE = new Date('2026-11-23T12:00:00Z');

export interface Mistake {
  text: string;
  files: readonly string[];
  expected: readonly string[];
  chosen: Selection[];
}

export interface Evaluation {
  dev: SplitFigures;
  test: SplitFigures;
  /** Prompts where the chosen set differs from the expected one, per split. */
  mistakes: { dev: Mistake[]; test: Mistake[] };
}

/** Every plugin is allowed in the evaluation, so social-post is judged like the rest. */
export function choose(prompt: LabelledPrompt): Selection[] {
  const input = { text: prompt.text, files: prompt.files, images: prompt.images, spaceHasFiles: prompt.space_has_files };
  return selectPlugins(input, PLUGIN_IDS, { now: LABELLED_SET_DATE });
}

function evaluateSplit(prompts: readonly LabelledPrompt[]): { figures: SplitFigures; mistakes: Mistake[] } {
  const outcomes: Outcome[] = [];
  const mistakes: Mistake[] = [];
  for (const prompt of prompts) {
    const chosen = choose(prompt);
    const outcome = { expected: prompt.plugins, chosen: chosen.map((s) => s.plugin) };
    outcomes.push(outcome);
    const exact = outcome.expected.length === outcome.chosen.length && outcome.expected.every((p) => outcome.chosen.includes(p));
    if (!exact) mistakes.push({ text: prompt.text, files: prompt.files, expected: prompt.plugins, chosen });
  }
  return { figures: splitFigures(outcomes), mistakes };
}

export function evaluateSelection(prompts: readonly LabelledPrompt[]): Evaluation {
  const dev = evaluateSplit(prompts.filter((p) => p.split === 'dev'));
  const test = evaluateSplit(prompts.filter((p) => p.split === 'test'));
  return { dev: dev.figures, test: test.figures, mistakes: { dev: dev.mistakes, test: test.mistakes } };
}

/**
 * Mean CPU microseconds per prompt over `rounds` passes through all prompts, after one pass to warm
 * up. CPU time rather than wall time: on a shared machine the wall clock also counts other processes.
 */
export function timePerPrompt(prompts: readonly LabelledPrompt[], rounds: number): number {
  prompts.forEach(choose);
  const started = process.cpuUsage();
  for (let round = 0; round < rounds; round += 1) prompts.forEach(choose);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / (rounds * Math.max(1, prompts.length));
}
