import { dot, sigmoid, type OutcomeModel, type PromptView } from '../../../src/routing/learned/linear-models';
import { AdaGrad } from './adagrad';

/**
 * The logit of a good answer by model number `m` (the formula on `OutcomeModel`). The shipped weights
 * keep no per-model parts, so only training and `router:eval` evaluate it.
 */
export function outcomeLogit(model: OutcomeModel, m: number, view: PromptView): number {
  let z = model.slope[m] * view.ease + (model.residual.length > 0 ? dot(view.features, model.residual, m * model.dimension) : 0);
  const row = m * model.kinds.length;
  for (let k = 0; k < model.kinds.length; k++) z += view.posterior[k] * model.theta[row + k];
  return z;
}

export interface OutcomeExample {
  view: PromptView;
  /** Model number → outcome in [0, 1]. */
  outcomes: Array<[number, number]>;
}

export interface OutcomeTraining {
  epochs: number;
  order: (epoch: number) => number[];
  /** L2 pull of the residuals, of the shared ease weights and of θ towards its start. */
  l2: { residual: number; ease: number; theta: number };
  rate: number;
}

/** Fits θ, slopes, ease and residuals jointly by AdaGrad on the log-loss, in a seeded order. */
export function trainOutcomeModel(model: OutcomeModel, examples: OutcomeExample[], options: OutcomeTraining): void {
  const prior = Float64Array.from(model.theta);
  const theta = new AdaGrad(model.theta, options.rate);
  const slope = new AdaGrad(model.slope, options.rate * 0.1);
  const ease = new AdaGrad(model.ease, options.rate);
  const residual = new AdaGrad(model.residual, options.rate);
  const K = model.kinds.length;
  const l2 = options.l2;
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (const n of options.order(epoch)) {
      const { view, outcomes } = examples[n];
      view.ease = dot(view.features, model.ease);
      let easeGradient = 0;
      for (const [m, y] of outcomes) {
        const g = sigmoid(outcomeLogit(model, m, view)) - y;
        for (let k = 0; k < K; k++) {
          const i = m * K + k;
          theta.step(i, g * view.posterior[k] + l2.theta * (model.theta[i] - prior[i]));
        }
        slope.step(m, g * view.ease);
        easeGradient += g * model.slope[m];
        const offset = m * model.dimension;
        if (model.residual.length > 0)
          for (let i = 0; i < view.features.indices.length; i++) {
            const index = offset + view.features.indices[i];
            residual.step(index, g * view.features.values[i] + l2.residual * model.residual[index]);
          }
      }
      for (let i = 0; i < view.features.indices.length; i++) {
        const index = view.features.indices[i];
        ease.step(index, easeGradient * view.features.values[i] + l2.ease * outcomes.length * model.ease[index]);
      }
    }
  }
}
