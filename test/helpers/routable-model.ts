import type { RoutableModel } from '../../src/domain/routable-model';

/** A catalog model for pure routing and pricing tests. */
export function routable(overrides: Partial<RoutableModel> = {}): RoutableModel {
  return {
    id: overrides.model ?? 'm',
    model: 'm',
    provider: 'openai',
    namespace: 'm',
    owner: 'openai',
    at: '',
    contextWindow: 128_000,
    promptTokenCost: 1e-6,
    completionTokenCost: 2e-6,
    baseCost: 0,
    supports: { functions: true, json: true, vision: true, stream: true, n: true, penalties: true, reasoning: true },
    isGdpr: false,
    deprecatedOn: null,
    until: null,
    quality: { overall: 0.5, categories: {} },
    ...overrides,
  };
}
