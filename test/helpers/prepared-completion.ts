import { privacyPolicyOf } from '../../src/domain/privacy-policy';
import type { PreparedCompletion } from '../../src/pipeline/prepare-request';

/** A prepared request with the Space defaults, for pipeline unit tests. */
export function preparedCompletion(chat: Partial<PreparedCompletion['chat']> = {}): PreparedCompletion {
  return {
    chat: { messages: [{ role: 'user', content: 'hi' }], ...chat },
    requestedModel: null,
    weights: { cost: 0.3, latency: 0.3, quality: 0.4 },
    policies: { max_cost: null, max_switch_model_retries: 2, max_same_model_retries: 2, optimize_internal_requests: 0, prompt_id: null },
    privacy: privacyPolicyOf(1),
    flags: {},
    labels: {},
    forwardedHeaders: {},
    plugins: [],
    query: 'hi',
    images: [],
    files: [],
    stream: false,
  };
}
