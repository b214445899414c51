import type { WebResult } from '../types';

/**
 * What `WEB_SEARCH_BACKEND=test` finds for any query, with no network: fixed results (documented in
 * docs/plugins/web-search.md) on reserved example.com URLs, which are never fetched. They let a
 * deployment without a search service check that web-search runs, that its sources reach the model
 * and that citations come back.
 */
const TEST_WEB_RESULTS: readonly WebResult[] = [
  {
    title: 'Switchyard test search result 1',
    url: 'https://example.com/switchyard-test/1',
    snippet: "This is a fixed result from Switchyard's test web-search backend (WEB_SEARCH_BACKEND=test), not from the web: every query gets the same results.",
    score: 1,
    publishedAt: '2026-01-01',
  },
  {
    title: 'Switchyard test search result 2',
    url: 'https://example.com/switchyard-test/2',
    snippet: 'Test results show that web-search ran and that its numbered sources reached the model, which can cite them as [1], [2] and [3].',
    score: 0.5,
    publishedAt: '2026-01-01',
  },
  {
    title: 'Switchyard test search result 3',
    url: 'https://example.com/switchyard-test/3',
    snippet: 'No search service was called. Set WEB_SEARCH_BACKEND to searxng, brave, tavily or exa for real results.',
    score: 1 / 3,
    publishedAt: '2026-01-01',
  },
];

/** The first `count` test results. */
export function testWebResults(count: number): WebResult[] {
  return TEST_WEB_RESULTS.slice(0, count).map((result) => ({ ...result }));
}
