import { randomUUID } from 'node:crypto';
import { startSearchSimulator, type SearchDialect, type SearchSimulator, type SearchSimulatorOptions } from './search-server';

/** Results Exa gives when `numResults` is absent. */
const DEFAULT_COUNT = 10;

const bodyOf = (body: unknown): Record<string, unknown> => (body && typeof body === 'object' ? (body as Record<string, unknown>) : {});

/** Exa's `POST /search`, key in `x-api-key`; page text comes back when `contents.text` is asked for. */
export const exaDialect: SearchDialect = {
  name: 'exa',
  method: 'POST',
  path: '/search',
  refuse: (request, apiKey) => {
    if (request.headers['x-api-key'] !== apiKey) return { status: 401, body: { requestId: randomUUID(), error: 'Invalid API key', tag: 'INVALID_API_KEY' } };
    if (typeof bodyOf(request.body).query !== 'string')
      return { status: 400, body: { requestId: randomUUID(), error: 'query is required', tag: 'INVALID_REQUEST_BODY' } };
    return null;
  },
  ask: (request) => {
    const body = bodyOf(request.body);
    return { query: String(body.query), count: Math.min(Number(body.numResults ?? DEFAULT_COUNT), 100) };
  },
  answer: (results) => ({
    requestId: randomUUID(),
    resolvedSearchType: 'neural',
    results: results.map((result, i) => ({
      id: result.url,
      title: result.title,
      url: result.url,
      publishedDate: result.publishedAt,
      author: null,
      score: result.score,
      text: `${result.snippet} More text from the page follows here.`,
      // The first result carries highlights, as when they are asked for; the others only text.
      ...(i === 0 ? { highlights: [result.snippet], highlightScores: [0.9] } : {}),
    })),
    costDollars: { total: 0.007, search: { neural: 0.007 } },
  }),
  errorBody: (status) => ({ requestId: randomUUID(), error: `Simulated HTTP ${status}.`, tag: status === 429 ? 'RATE_LIMIT_EXCEEDED' : 'INTERNAL_ERROR' }),
};

export function startExaSimulator(options: SearchSimulatorOptions = {}): Promise<SearchSimulator> {
  return startSearchSimulator(exaDialect, options);
}
