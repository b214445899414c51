import type { LabelledPrompt } from '../evaluation/labelled-prompt';
import { convertAlpacaEval } from './alpaca-eval';
import type { ContaminationOptions } from './contamination';
import { convertMmluPro } from './mmlu-pro';
import { convertMtBench } from './mt-bench';
import { convertRoutellmGsm8k } from './routellm-gsm8k';
import { convertRoutellmMmlu } from './routellm-mmlu';

export { splitFolds, type Fold } from './folds';
export { readJsonl, readJsonlWith, writeJsonl } from './jsonl';
export { modelsOf, restrictModels } from './restrict-models';
export { seededRandom, seededShuffle } from './seeded-random';
export type { ContaminationOptions } from './contamination';

/** The shared routing sets (`tools/router-lab/data/routing/`) that convert to the router's evaluation format. */
export const DATASETS = ['mmlu_pro', 'routellm_mmlu', 'routellm_gsm8k', 'mt_bench', 'alpaca_eval'] as const;
export type DatasetName = (typeof DATASETS)[number];

const CONVERTERS: Record<DatasetName, (dataDir: string, options: ContaminationOptions) => LabelledPrompt[]> = {
  mmlu_pro: (dataDir) => convertMmluPro(dataDir),
  routellm_mmlu: convertRoutellmMmlu,
  routellm_gsm8k: convertRoutellmGsm8k,
  mt_bench: convertMtBench,
  alpaca_eval: (dataDir) => convertAlpacaEval(dataDir),
};

/**
 * The named set as evaluation lines, in a fixed order (the source files' order). `dataDir` is the
 * folder holding the sets (`tools/router-lab/data/routing`). RouteLLM's contaminated prompts are left out
 * unless `keepContaminated` (the other sets have no such list).
 */
export function convertDataset(name: DatasetName, dataDir: string, options: ContaminationOptions = {}): LabelledPrompt[] {
  return CONVERTERS[name](dataDir, options);
}
