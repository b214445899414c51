import type { LabelledPrompt, PriceTable } from './labelled-prompt';

/** A router's view of one candidate on one prompt. */
export interface RouterEstimate {
  /** Predicted probability of a good answer (or expected outcome), 0 to 1. */
  quality: number;
  /** Estimated USD of answering this prompt with the model. */
  cost: number;
}

/** A router as `router:eval` sees it: trained on `--train`, then asked about each `--test` prompt. */
export interface EvalRouter {
  /** One estimate per model, in the order of `models`. */
  estimate(prompt: LabelledPrompt, models: readonly string[]): RouterEstimate[];
  /** The kind of prompt the router takes this to be (the online learner keeps its statistics per kind). */
  kindOf(prompt: LabelledPrompt): string;
}

export interface TrainingSet {
  prompts: LabelledPrompt[];
  /** Prices to estimate costs with; null when the lines carry `cost`. */
  prices: PriceTable | null;
  seed: number;
}

export type RouterTrainer = (training: TrainingSet) => EvalRouter;
