import type { Usage } from '../domain/chat';
import type { Costs } from '../domain/costs';
import type { RoutableModel } from '../domain/routable-model';

export type { Costs };

export const ZERO_COSTS: Costs = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** Rounded to a billionth of a dollar, so sums of many requests stay exact enough and JSON stays short. */
const usd = (value: number) => Math.round(value * 1e9) / 1e9;

type Priced = Pick<RoutableModel, 'promptTokenCost' | 'completionTokenCost' | 'baseCost'>;

/**
 * What the usage costs at the model's catalog prices; the per-request base cost counts in the total.
 * Reasoning tokens are part of the completion tokens (every adapter counts them there), so they are
 * billed as output, as every provider bills them.
 */
export function costOf(model: Priced, usage: Usage): Costs {
  const prompt = usage.prompt_tokens * model.promptTokenCost;
  const completion = usage.completion_tokens * model.completionTokenCost;
  return { prompt_tokens: usd(prompt), completion_tokens: usd(completion), total_tokens: usd(prompt + completion + model.baseCost) };
}

/**
 * What the same tokens would have cost on the benchmark model, minus what they cost. Negative when the
 * model used is dearer than the benchmark; zero when the Space has no benchmark.
 */
export function savingsOf(benchmark: Priced | null, usage: Usage, actual: Costs): Costs {
  if (!benchmark) return ZERO_COSTS;
  const reference = costOf(benchmark, usage);
  return {
    prompt_tokens: usd(reference.prompt_tokens - actual.prompt_tokens),
    completion_tokens: usd(reference.completion_tokens - actual.completion_tokens),
    total_tokens: usd(reference.total_tokens - actual.total_tokens),
  };
}
