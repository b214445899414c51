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

/** USD this request would cost on the model, with the expected completion length. */
export function estimatedCost(model: RoutableModel, profile: RequestProfile): number {
  return profile.promptTokens * model.promptTokenCost + profile.expectedCompletionTokens * model.completionTokenCost + model.baseCost;
}
