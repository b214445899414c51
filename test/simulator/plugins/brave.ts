import { randomUUID } from 'node:crypto';
import { startSearchSimulator, type SearchDialect, type SearchSimulator, type SearchSimulatorOptions } from './search-server';

/** Results Brave gives when `count` is absent; it takes at most 20. */
const DEFAULT_COUNT = 20;

const CODES: Record<number, string> = { 401: 'SUBSCRIPTION_TOKEN_INVALID', 422: 'VALIDATION', 429: 'RATE_LIMITED' };

function braveError(status: number, detail: string): unknown {
  return {
    type: 'ErrorResponse',
    error: { id: randomUUID(), status, code: CODES[status] ?? (status >= 500 ? 'UNKNOWN' : 'OPTION_NOT_IN_PLAN'), detail, meta: {} },
    time: Math.floor(Date.now() / 1000),
  };
}

/** Brave Search API's `GET /res/v1/web/search`, key in `X-Subscription-Token`. */
export const braveDialect: SearchDialect = {
  name: 'brave',
  method: 'GET',
  path: '/res/v1/web/search',
  refuse: (request, apiKey) => {
    if (request.headers['x-subscription-token'] !== apiKey) return { status: 401, body: braveError(401, 'The provided subscription token is invalid.') };
    if (!request.params.q) return { status: 422, body: braveError(422, 'Unable to validate request parameter(s).') };
    return null;
  },
  ask: (request) => ({ query: request.params.q ?? '', count: Math.min(Number(request.params.count ?? DEFAULT_COUNT), 20) }),
  answer: (results, query) => ({
    type: 'search',
    query: { original: query, show_strict_warning: false, is_navigational: false, spellcheck_off: true, country: 'us', more_results_available: true },
    mixed: { type: 'mixed', main: results.map((_, index) => ({ type: 'web', index, all: false })), top: [], side: [] },
    // Brave leaves `web` out when nothing was found on the web.
    ...(results.length === 0
      ? {}
      : {
          web: {
            type: 'search',
            family_friendly: true,
            results: results.map((result, i) => ({
              type: 'search_result',
              title: result.title,
              url: result.url,
              // With the default text decorations, matches are wrapped in <strong>.
              description: result.snippet.replace(query, `<strong>${query}</strong>`),
              is_source_local: false,
              is_source_both: false,
              language: 'en',
              family_friendly: true,
              meta_url: { scheme: 'https', netloc: new URL(result.url).host, hostname: new URL(result.url).hostname, path: new URL(result.url).pathname },
              ...(i === 0 ? { age: '2 days ago' } : { age: 'November 20, 2026', page_age: result.publishedAt.replace('Z', '') }),
            })),
          },
        }),
  }),
  errorBody: (status) => braveError(status, `Simulated HTTP ${status}.`),
};

export function startBraveSimulator(options: SearchSimulatorOptions = {}): Promise<SearchSimulator> {
  return startSearchSimulator(braveDialect, options);
}
