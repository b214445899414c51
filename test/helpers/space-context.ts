import type { SpaceContext } from '../../src/store/space-context';
import { autoToolsSettings } from '../../src/schemas/plugin-settings';
import { preparedCompletion } from './prepared-completion';

/** A Space as the pipeline sees it, with the defaults and no models unless given, for unit tests. */
export function spaceContext(overrides: Partial<SpaceContext> = {}): SpaceContext {
  return {
    id: 'space',
    orgId: 'org',
    isActive: true,
    rateLimit: 0,
    isSandbox: false,
    dataSpaceId: 'space',
    weights: { cost: 0, latency: 0, quality: 1 },
    policies: { ...preparedCompletion().policies, privacy_level: 1 },
    settings: { assistant_id: null, assistant_version_id: null, instructions: null, max_tokens: null, temperature: null },
    autoTools: autoToolsSettings.parse({}),
    hasFailoverChain: false,
    models: [],
    failoverChain: [],
    benchmark: null,
    embeddingModels: [],
    embeddingBenchmark: null,
    ...overrides,
  };
}
