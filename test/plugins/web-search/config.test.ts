import { readWebSearchConfig, WEB_SEARCH_ENV_VARIABLES } from '../../../src/config/plugins/web-search';

describe('readWebSearchConfig', () => {
  test('with nothing set: SearXNG, no base URL, free', () => {
    expect(readWebSearchConfig({})).toEqual({
      backend: 'searxng',
      baseUrl: null,
      apiKey: null,
      costUsd: 0,
      timeoutMs: 10_000,
      pageTimeoutMs: 5_000,
      pageMaxBytes: 2 * 1024 * 1024,
      pageMaxChars: 4_000,
    });
  });

  test('SearXNG reads its base URL and ignores a key', () => {
    const config = readWebSearchConfig({ SEARXNG_BASE_URL: 'http://searxng:8080', SEARXNG_API_KEY: 'ignored' });
    expect(config).toMatchObject({ backend: 'searxng', baseUrl: 'http://searxng:8080', apiKey: null });
  });

  test.each([
    ['brave', 'https://api.search.brave.com', 0.005],
    ['tavily', 'https://api.tavily.com', 0.008],
    ['exa', 'https://api.exa.ai', 0.007],
  ])('%s defaults to its public base URL and price, and reads its key', (backend, baseUrl, costUsd) => {
    const config = readWebSearchConfig({ WEB_SEARCH_BACKEND: backend.toUpperCase(), [`${backend.toUpperCase()}_API_KEY`]: 'secret' });
    expect(config).toMatchObject({ backend, baseUrl, apiKey: 'secret', costUsd });
  });

  test('WEB_SEARCH_COST_USD and <BACKEND>_BASE_URL override the defaults; empty values count as unset', () => {
    const config = readWebSearchConfig({
      WEB_SEARCH_BACKEND: 'brave',
      BRAVE_BASE_URL: 'https://brave.internal/',
      WEB_SEARCH_COST_USD: '0.004',
      BRAVE_API_KEY: '',
    });
    expect(config).toMatchObject({ baseUrl: 'https://brave.internal/', costUsd: 0.004, apiKey: null });
  });

  test.each([
    [{ WEB_SEARCH_BACKEND: 'bing' }, 'WEB_SEARCH_BACKEND'],
    [{ WEB_SEARCH_BACKEND: 'tavily', TAVILY_BASE_URL: 'not a url' }, 'TAVILY_BASE_URL'],
    [{ SEARXNG_BASE_URL: 'ftp://searxng' }, 'SEARXNG_BASE_URL'],
    [{ WEB_SEARCH_COST_USD: '-1' }, 'WEB_SEARCH_COST_USD'],
    [{ WEB_SEARCH_PAGE_MAX_CHARS: '0' }, 'WEB_SEARCH_PAGE_MAX_CHARS'],
  ])('a bad value names its variable (%o)', (env, name) => {
    expect(() => readWebSearchConfig(env)).toThrow(name);
  });

  test('lists every variable it reads', () => {
    expect([...WEB_SEARCH_ENV_VARIABLES].sort()).toEqual(
      [
        'WEB_SEARCH_BACKEND',
        'WEB_SEARCH_COST_USD',
        'WEB_SEARCH_TIMEOUT_MS',
        'WEB_SEARCH_PAGE_TIMEOUT_MS',
        'WEB_SEARCH_PAGE_MAX_BYTES',
        'WEB_SEARCH_PAGE_MAX_CHARS',
        'SEARXNG_BASE_URL',
        'BRAVE_BASE_URL',
        'BRAVE_API_KEY',
        'TAVILY_BASE_URL',
        'TAVILY_API_KEY',
        'EXA_BASE_URL',
        'EXA_API_KEY',
      ].sort(),
    );
  });
});
