import { startSearchSimulator, type SearchDialect, type SearchSimulator, type SearchSimulatorOptions } from './search-server';

/** SearXNG answers one page of results whatever the client wants (about 10 per engine mix). */
const PAGE_SIZE = 10;

/**
 * SearXNG's `GET /search?q=...&format=json`. It takes no key; an instance without `json` in
 * `search.formats` answers 403 with an HTML page, which the simulator does for any other format.
 */
export const searxngDialect: SearchDialect = {
  name: 'searxng',
  method: 'GET',
  path: '/search',
  refuse: (request) =>
    request.params.format === 'json'
      ? null
      : { status: 403, contentType: 'text/html; charset=utf-8', body: '<!DOCTYPE html><title>403 Forbidden</title><h1>Forbidden</h1>' },
  ask: (request) => ({ query: request.params.q ?? '', count: PAGE_SIZE }),
  answer: (results, query) => ({
    query,
    number_of_results: 0,
    results: results.map((result, i) => ({
      url: result.url,
      title: result.title,
      content: result.snippet,
      publishedDate: i === 0 ? null : result.publishedAt,
      thumbnail: null,
      engine: 'duckduckgo',
      template: 'default.html',
      parsed_url: ['https', new URL(result.url).host, new URL(result.url).pathname, '', '', ''],
      engines: ['duckduckgo', 'brave'],
      positions: [i + 1],
      score: result.score * 2,
      category: 'general',
    })),
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: [`${query} news`],
    unresponsive_engines: [],
  }),
  errorBody: (status) => ({ error: status === 429 ? 'Too Many Requests' : `HTTP ${status}` }),
};

export function startSearxngSimulator(options: SearchSimulatorOptions = {}): Promise<SearchSimulator> {
  return startSearchSimulator(searxngDialect, options);
}
