import { trainCostEstimate } from './cost-estimate';
import type { RouterTrainer } from './eval-router';
import { categoryOf, outcomeMeans } from './outcome-means';

/** Pseudo-counts of the model's overall mean added to each category: a small category leans on the overall figure. */
const PSEUDO_COUNTS = 10;

/**
 * Best-model-per-category: a model's estimate is its mean training outcome in the line's category,
 * smoothed toward its overall mean with `PSEUDO_COUNTS` pseudo-counts; a category it was never trained
 * on (or a line without one) gets the overall mean. Costs come from the shared cost estimate.
 */
export const trainCategoryRouter: RouterTrainer = (training) => {
  const means = outcomeMeans(training.prompts);
  const costs = trainCostEstimate(training);
  return {
    estimate: (line, models) =>
      models.map((model) => {
        const overall = means.overall(model);
        const { sum, count } = means.inCategory(model, categoryOf(line));
        return { quality: (sum + PSEUDO_COUNTS * overall) / (count + PSEUDO_COUNTS), cost: costs.cost(line, model) };
      }),
    kindOf: categoryOf,
  };
};
