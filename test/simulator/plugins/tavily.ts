import { startSearchSimulator, type SearchDialect, type SearchSimulator, type SearchSimulatorOptions } from './search-server';

/** Results Tavily gives when `max_results` is absent. */
const DEFAULT_COUNT = 5;

const bodyOf = (body: unknown): Record<string, unknown> => (body && typeof body === 'object' ? (body as Record<string, unknown>) : {});

/** Tavily's `POST /search`, key as `Authorization: Bearer tvly-...`. */
export const tavilyDialect: SearchDialect = {
  name: 'tavily',
  method: 'POST',
  path: '/search',
  refuse: (request, apiKey) => {
    if (request.headers.authorization !== `Bearer ${apiKey}`) return { status: 401, body: { detail: { error: 'Unauthorized: missing or invalid API key.' } } };
    if (typeof bodyOf(request.body).query !== 'string') return { status: 400, body: { detail: { error: 'Query is missing.' } } };
    return null;
  },
  ask: (request) => {
    const body = bodyOf(request.body);
    return { query: String(body.query), count: Math.min(Number(body.max_results ?? DEFAULT_COUNT), 20) };
  },
  answer: (results, query) => ({
    query,
    follow_up_questions: null,
    answer: null,
    images: [],
    results: results.map((result, i) => ({
      title: result.title,
      url: result.url,
      content: result.snippet,
      score: result.score,
      raw_content: null,
      // Tavily dates results of the `news` topic only.
      ...(i === 0 ? {} : { published_date: result.publishedAt }),
    })),
    response_time: 0.42,
  }),
  errorBody: (status) => ({ detail: { error: `Simulated HTTP ${status}.` } }),
};

export function startTavilySimulator(options: SearchSimulatorOptions = {}): Promise<SearchSimulator> {
  return startSearchSimulator(tavilyDialect, options);
}
