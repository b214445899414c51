import { writeFileSync } from 'node:fs';
import { convertDataset, type DatasetName } from '../datasets';
import type { LabelledPrompt } from '../evaluation/labelled-prompt';
import { SHIPPED_BUCKETS } from '../learned/router-version';
import { trainRouterModel } from '../learned/train-router';
import { toWeightsFile } from '../learned/weights-writer';
import { trainingKind } from './training-kinds';

/** The sets the shipped weights learn from; RouteLLM's MMLU adds only two models on MMLU-like prompts. */
export const TRAINING_SETS: readonly DatasetName[] = ['mmlu_pro', 'alpaca_eval', 'routellm_gsm8k', 'mt_bench'];
/** AlpacaEval's reference column: a constant 0.5 against itself, no information. */
const CONSTANT_COLUMNS = new Set(['gpt4_1106_preview']);

export interface TrainCommand {
  dataDir: string;
  out: string;
  seed: number;
  version: string;
}

function withoutConstantColumns(line: LabelledPrompt): LabelledPrompt {
  const outcomes = Object.fromEntries(Object.entries(line.outcomes).filter(([model]) => !CONSTANT_COLUMNS.has(model)));
  return { ...line, outcomes };
}

/** Rebuilds the shipped weights file from the shared sets; the same data and seed give the same bytes. */
export function runTrain(command: TrainCommand): { sets: Record<string, number>; kinds: string[]; models: number } {
  const kinds = new Map<LabelledPrompt, string>();
  const sets: Record<string, number> = {};
  const lines = TRAINING_SETS.flatMap((set) => {
    const converted = convertDataset(set, command.dataDir).map(withoutConstantColumns);
    sets[set] = converted.length;
    for (const line of converted) kinds.set(line, trainingKind(set, line));
    return converted;
  });
  const model = trainRouterModel(lines, {
    version: command.version,
    seed: command.seed,
    buckets: SHIPPED_BUCKETS,
    residuals: false,
    kindOf: (line) => kinds.get(line) ?? 'chat',
  });
  const file = toWeightsFile(model, { seed: command.seed, sets, models: model.outcome.models.length });
  writeFileSync(command.out, `${JSON.stringify(file)}\n`);
  return { sets, kinds: file.kinds, models: file.training.models };
}
