import { priced, promptTokens } from './costs';
import type { TrainingSet } from './eval-router';
import type { LabelledPrompt, PriceTable } from './labelled-prompt';

/** What the baselines expect a model to cost on a prompt, learned from the training lines. */
export interface CostEstimate {
  /** Estimated USD of answering `line` with `model`. */
  cost(line: LabelledPrompt, model: string): number;
}

interface Mean {
  sum: number;
  count: number;
}

function accumulate(means: Map<string, Mean>, values: Record<string, number> | undefined): void {
  for (const [model, value] of Object.entries(values ?? {})) {
    const mean = means.get(model) ?? { sum: 0, count: 0 };
    mean.sum += value;
    mean.count += 1;
    means.set(model, mean);
  }
}

const average = (mean: Mean | undefined): number | undefined => (mean ? mean.sum / mean.count : undefined);

/**
 * When the training lines carry `cost` for a model, its estimate is that mean (USD per prompt); otherwise
 * the prompt's own tokens plus the model's mean training `completion_tokens` (0 when it has none) at the
 * price table's prices.
 */
export function trainCostEstimate(training: Pick<TrainingSet, 'prompts' | 'prices'>): CostEstimate {
  const costs = new Map<string, Mean>();
  const completions = new Map<string, Mean>();
  for (const line of training.prompts) {
    accumulate(costs, line.cost);
    accumulate(completions, line.completion_tokens);
  }
  return {
    cost(line, model) {
      const known = average(costs.get(model));
      if (known !== undefined) return known;
      return priced(requirePrices(training.prices, model), model, {
        prompt: promptTokens(line),
        completion: average(completions.get(model)) ?? 0,
      });
    },
  };
}

function requirePrices(prices: PriceTable | null, model: string): PriceTable {
  if (!prices) throw new Error(`The training lines carry no cost for '${model}' and no prices were given.`);
  return prices;
}
