import { trainCostEstimate } from '../evaluation/cost-estimate';
import { priced, promptTokens } from '../evaluation/costs';
import type { RouterTrainer } from '../evaluation/eval-router';
import type { LabelledPrompt } from '../evaluation/labelled-prompt';
import { shapeOf } from '../../../src/routing/learned/prompt-features';
import { completionTokens, readPrompt, type PromptReading } from '../../../src/routing/learned/router-model';
import { knownModelQuality, withKnownKind } from './known-models';
import { ROUTER_BUCKETS } from './router-version';
import { trainRouterModel } from './train-router';

/** A model with no training line is a coin toss to the router. */
const UNKNOWN_MODEL_QUALITY = 0.5;

/**
 * Switchyard's router as `router:eval` trains and scores it: every part (kind classifier, profiles,
 * ease, per-model residuals, completion lengths) learned from `--train` alone. A test line's `category`,
 * when it names a kind seen in training, is taken as given (as the per-category baseline takes it). Costs are the prompt's
 * tokens plus the predicted completion tokens at the given prices; for models whose training lines carry
 * `cost` instead, their mean training cost.
 */
export const trainSwitchyardRouter: RouterTrainer = (training) => {
  const model = trainRouterModel(training.prompts, { version: 'eval', seed: training.seed, buckets: ROUTER_BUCKETS, residuals: true });
  const fallbackCost = trainCostEstimate(training);
  const withLengths = new Set(training.prompts.flatMap((line) => Object.keys(line.completion_tokens ?? {})));
  const readings = new WeakMap<LabelledPrompt, PromptReading>();
  const read = (line: LabelledPrompt): PromptReading => {
    const cached = readings.get(line);
    if (cached) return cached;
    const read = readPrompt(model, shapeOf(line.prompt));
    const reading = line.category === undefined ? read : withKnownKind(model, read, line.category);
    readings.set(line, reading);
    return reading;
  };
  return {
    estimate(line, models) {
      const reading = read(line);
      return models.map((name) => ({
        quality: knownModelQuality(model, name, reading) ?? UNKNOWN_MODEL_QUALITY,
        cost:
          training.prices && withLengths.has(name)
            ? priced(training.prices, name, { prompt: promptTokens(line), completion: completionTokens(model, name, reading) })
            : fallbackCost.cost(line, name),
      }));
    },
    kindOf: (line) => read(line).kind,
  };
};
