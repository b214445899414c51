import {
  expectedTokens,
  kindPosterior,
  logit,
  sigmoid,
  viewPrompt,
  type KindClassifier,
  type LengthModel,
  type OutcomeModel,
  type PromptView,
} from './linear-models';
import { promptFeatures, type PromptShape } from './prompt-features';

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
