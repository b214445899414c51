/**
 * Where an organization's custom model answers: its own OpenAI-compatible server instead of the
 * provider's configured one. The key stays sealed until the provider registry opens it for a call.
 */
export interface ModelEndpoint {
  baseUrl: string;
  /** SecretBox text; null when the server needs no key. */
  sealedApiKey: string | null;
}

/** A model as routing, pricing and the providers need it: the catalog row, without storage details. */
export interface RoutableModel {
  id: string;
  /** The name clients send. */
  model: string;
  provider: string;
  /** The provider's own model name. */
  namespace: string;
  owner: string;
  at: string;
  contextWindow: number;
  /** USD per prompt token. */
  promptTokenCost: number;
  /** USD per completion token. */
  completionTokenCost: number;
  /** USD per request. */
  baseCost: number;
  /** `reasoning`: takes a reasoning setting (effort or thinking budget); without it a request's reasoning is left out. */
  supports: { functions: boolean; json: boolean; vision: boolean; stream: boolean; n: boolean; penalties: boolean; reasoning: boolean };
  /** Processed under GDPR terms in the EU, or locally: the only models privacy level 3 routes to. */
  isGdpr: boolean;
  deprecatedOn: Date | null;
  until: Date | null;
  /** Probability of a good answer, overall and per kind of prompt (the catalog's prior). */
  quality: { overall: number; categories: Record<string, number> };
  /** Set for a custom model only; catalog models use their provider's configured base URL and key. */
  endpoint?: ModelEndpoint;
}

export function isDeprecated(model: RoutableModel, now: Date): boolean {
  return model.deprecatedOn !== null && model.deprecatedOn <= now;
}

/** Past `until` the provider no longer serves the model. */
export function isRetired(model: RoutableModel, now: Date): boolean {
  return model.until !== null && model.until < now;
}
