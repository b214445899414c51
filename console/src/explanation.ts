import type { RoutingScores } from '../../src/domain/completion';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

type Candidate = RoutingScores['candidates'][number];

function isCandidate(value: unknown): value is Candidate {
  return isObject(value) && typeof value.model === 'string' && typeof value.provider === 'string' && typeof value.score === 'number';
}

/**
 * The router's explanation of a request, read from what the API shows of the log: its response's
 * `metadata.scores` (a chat completion), or `scores` of a log stored in the domain shape. Null when the
 * log has none (a sub-request, a failure before routing, an older log).
 */
export function routingScoresOf(response: unknown): RoutingScores | null {
  if (!isObject(response)) return null;
  const scores = isObject(response.metadata) ? response.metadata.scores : response.scores;
  if (!isObject(scores) || !Array.isArray(scores.candidates) || !scores.candidates.every(isCandidate)) return null;
  const router = isObject(scores.router) ? scores.router : {};
  return {
    best_models: Array.isArray(scores.best_models) ? scores.best_models.filter((name): name is string => typeof name === 'string') : [],
    candidates: scores.candidates,
    router: {
      version: String(router.version ?? ''),
      kind: String(router.kind ?? ''),
      smart_learn: router.smart_learn === true,
      explored: router.explored === true,
    },
  };
}

/**
 * The model the request named, from the request its log keeps (`payload.model`); null when it named none.
 * The service's own name (automatic choice) is never a model that answers or a candidate, so the caller
 * counts a name as "named" only when it is the answering model or one of the candidates.
 */
export function requestedModelOf(request: unknown): string | null {
  return isObject(request) && typeof request.model === 'string' && request.model !== '' ? request.model : null;
}
