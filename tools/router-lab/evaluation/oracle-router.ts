import { actualCost } from './costs';
import type { RouterTrainer } from './eval-router';
import { categoryOf } from './outcome-means';

/**
 * The oracle: it reads the test line's true outcomes and actual costs, so at w = 0 it picks a model with
 * the best outcome, the cheapest among ties. It bounds what any router could reach on the test set.
 */
export const trainOracleRouter: RouterTrainer = ({ prices }) => ({
  estimate: (line, models) => models.map((model) => ({ quality: line.outcomes[model] ?? 0, cost: actualCost(line, model, prices) })),
  kindOf: categoryOf,
});
