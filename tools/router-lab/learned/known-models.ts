import { sigmoid } from '../../../src/routing/learned/linear-models';
import type { PromptReading, RouterModel } from '../../../src/routing/learned/router-model';
import { outcomeLogit } from './train-outcome-model';

// What `router:eval` knows that the shipped router does not: a test line's kind, and the models it trained on by name.

/**
 * The reading when the kind is known for certain (an evaluation line's `category`): the posterior
 * becomes that kind alone. Unknown kinds leave the reading as the classifier made it.
 */
export function withKnownKind(model: RouterModel, reading: PromptReading, kind: string): PromptReading {
  const k = model.classifier.kinds.indexOf(kind);
  if (k < 0) return reading;
  const posterior = new Float64Array(model.classifier.kinds.length);
  posterior[k] = 1;
  return { view: { ...reading.view, posterior }, kind, relativeEase: reading.view.ease - model.easeByKind[k] };
}

/** Quality of a model the router was trained on, by its name; null when it does not know the model. */
export function knownModelQuality(model: RouterModel, name: string, reading: PromptReading): number | null {
  const m = model.outcome.models.indexOf(name);
  return m < 0 ? null : sigmoid(outcomeLogit(model.outcome, m, reading.view));
}
