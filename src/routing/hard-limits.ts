import { isRetired, type RoutableModel } from '../domain/routable-model';
import type { RequestProfile } from './request-profile';

export interface Limits {
  /** Largest estimated cost of this request, USD; null = no limit. */
  maxCost: number | null;
  /** Only a model processed under GDPR terms may answer (privacy level 3). */
  needsGdprModel: boolean;
  now: Date;
}

/** Why a model cannot take this request, or null when it can. */
export function exclusionReason(model: RoutableModel, profile: RequestProfile, limits: Limits): string | null {
  if (isRetired(model, limits.now)) return 'retired';
  // The bound first: a window the prompt cannot reach needs no count.
  if (model.contextWindow > 0 && (profile.promptTokensAtMost ?? Infinity) >= model.contextWindow && profile.promptTokens >= model.contextWindow) {
    return `prompt of ${profile.promptTokens} tokens exceeds the context window of ${model.contextWindow}`;
  }
  if (profile.needs.functions && !model.supports.functions) return 'does not support tools';
  if (profile.needs.vision && !model.supports.vision) return 'does not accept images';
  if (profile.needs.json && !model.supports.json) return 'does not support JSON mode';
  if (limits.needsGdprModel && !model.isGdpr) return 'privacy level 3 needs a model processed under GDPR terms';
  if (limits.maxCost !== null && estimatedCost(model, profile) > limits.maxCost) return `estimated cost exceeds max_cost ${limits.maxCost}`;
  return null;
}

/** What would let a request through, for each kind of reason `exclusionReason` gives (its text's start). */
const REMEDIES: [start: string, remedy: string][] = [
  ['retired', 'switch on a model that is not retired'],
  ['prompt of', 'send a shorter prompt, or switch on a model with a larger context window'],
  ['does not support tools', 'switch on a model that supports tools, or send none'],
  ['does not accept images', 'switch on a model that accepts images, or send none'],
  ['does not support JSON mode', 'switch on a model that supports JSON mode, or ask for text'],
  ['privacy level 3', 'switch on a model processed under GDPR terms'],
  ['estimated cost exceeds', "raise the Space's or the request's policies.max_cost"],
];

/** What would make a model excluded for `reason` able to take the request, or null when nothing is known to. */
export function remedyOf(reason: string): string | null {
  return REMEDIES.find(([start]) => reason.startsWith(start))?.[1] ?? null;
}

/** USD this request would cost on the model, with the expected completion length. */
export function estimatedCost(model: RoutableModel, profile: RequestProfile): number {
  return profile.promptTokens * model.promptTokenCost + profile.expectedCompletionTokens * model.completionTokenCost + model.baseCost;
}
