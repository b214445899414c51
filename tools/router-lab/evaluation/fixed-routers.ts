import { trainCostEstimate } from './cost-estimate';
import type { RouterTrainer } from './eval-router';
import { categoryOf, outcomeMeans } from './outcome-means';

/*
 * Routers whose choice does not depend on the cost weight: their estimates are built so that the
 * decision rule picks the same model at every weight, which makes each of them a single point. Where
 * the choice is not the cheapest, the estimated cost is 1 − quality, so that cost and quality agree and
 * even w = 1 (quality weighted 0) picks the same model.
 */

/** A uniform number in [0, 1) from the seed, the prompt id and the model (FNV-1a, then a 32-bit mix). */
function uniform(seed: number, id: string, model: string): number {
  const text = `${seed}\u0000${id}\u0000${model}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x45d9f3b);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/**
 * Random: a seeded uniform draw per prompt and model as quality, so the argmax is a uniform choice per
 * prompt whatever the cost weight. With two models the draws give a seeded random
 * order, whose expected APGR is 0.5.
 */
export const trainRandomRouter: RouterTrainer = ({ seed }) => ({
  estimate: (line, models) =>
    models.map((model) => {
      const quality = uniform(seed, line.id, model);
      return { quality, cost: 1 - quality };
    }),
  kindOf: categoryOf,
});

/** Always-best-single: the model with the best mean training outcome (not test), at every weight. */
export const trainBestSingleRouter: RouterTrainer = ({ prompts }) => {
  const means = outcomeMeans(prompts);
  return {
    estimate: (_line, models) => {
      const best = means.best(models);
      return models.map((model) => (model === best ? { quality: 1, cost: 0 } : { quality: 0, cost: 1 }));
    },
    kindOf: categoryOf,
  };
};

/** Always-cheapest: the model with the lowest estimated cost, at every weight (equal qualities tie at w = 0). */
export const trainCheapestRouter: RouterTrainer = (training) => {
  const costs = trainCostEstimate(training);
  return {
    estimate: (line, models) => models.map((model) => ({ quality: 0, cost: costs.cost(line, model) })),
    kindOf: categoryOf,
  };
};
