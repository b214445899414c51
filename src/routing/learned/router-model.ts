import { logit, sigmoid } from './logistic';
import { kindPosterior, type KindClassifier } from './kind-classifier';
import { expectedTokens, type LengthModel } from './length-model';
import { outcomeLogit, viewPrompt, type OutcomeModel, type PromptView } from './outcome-model';
import type { PromptShape } from './prompt-shape';
import { promptFeatures } from './text-features';

/** Everything the learned router knows: trained offline, or on `--train` in `router:eval`. */
export interface RouterModel {
  version: string;
  buckets: number;
  classifier: KindClassifier;
  outcome: OutcomeModel;
  /** Mean ease of the training prompts of each kind (in `classifier.kinds` order), to centre a prompt's ease. */
  easeByKind: Float64Array;
  length: LengthModel;
  /** How strongly a model known only by its profile feels a prompt's ease (the training models' mean slope). */
  profileSlope: number;
}

/** The router's reading of one prompt, computed once and shared by every candidate. */
export interface PromptReading {
  view: PromptView;
  /** The most likely kind of prompt. */
  kind: string;
  /** How much easier (positive) or harder than usual for its kind the prompt looks, in logits. */
  relativeEase: number;
}

export function readPrompt(model: RouterModel, shape: PromptShape): PromptReading {
  const features = promptFeatures(shape, model.buckets);
  const posterior = kindPosterior(model.classifier, features);
  const view = viewPrompt(model.outcome, features, posterior);
  let best = 0;
  let usual = 0;
  for (let k = 0; k < posterior.length; k++) {
    usual += posterior[k] * model.easeByKind[k];
    if (posterior[k] > posterior[best]) best = k;
  }
  return { view, kind: model.classifier.kinds[best], relativeEase: view.ease - usual };
}

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

/**
 * Quality of a model known only by its profile (probability of a good answer per kind, at the
 * kind's usual difficulty): the profile's logit averaged over the kind posterior, moved by how much
 * easier or harder than usual this prompt looks. This is how catalog models never seen in training are routed.
 */
export function profileQuality(model: RouterModel, profile: (kind: string) => number, reading: PromptReading): number {
  const { kinds } = model.classifier;
  let z = 0;
  for (let k = 0; k < kinds.length; k++) z += reading.view.posterior[k] * logit(profile(kinds[k]));
  return sigmoid(z + model.profileSlope * reading.relativeEase);
}

/** Expected completion tokens on this prompt: the model's own verbosity if known, else a typical model's. */
export function completionTokens(model: RouterModel, name: string, reading: PromptReading): number {
  return expectedTokens(model.length, model.length.models.indexOf(name), reading.view.features);
}
