import { concurrencyFor, readNetConfig } from '../../../src/config/plugins/net';

describe('readNetConfig', () => {
  it('has safe defaults: no allowlist, 10 MiB, 10 s, a 600 s cache, 16 calls per backend', () => {
    const config = readNetConfig({});
    expect(config).toEqual({
      ssrfAllowedHosts: [],
      fetchMaxBytes: 10 * 1024 * 1024,
      fetchTimeoutMs: 10_000,
      pluginCacheTtlSeconds: 600,
      pluginConcurrency: 16,
      pluginConcurrencyOverrides: {},
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable', () => {
    const config = readNetConfig({
      SSRF_ALLOWED_HOSTS: ' wiki.internal , 127.0.0.1:4000,[::1]:5000,',
      FETCH_MAX_BYTES: '2048',
      FETCH_TIMEOUT_MS: '3000',
      PLUGIN_CACHE_TTL_SECONDS: '0',
      PLUGIN_CONCURRENCY: '8',
      PLUGIN_CONCURRENCY_SEARXNG: '32',
      PLUGIN_CONCURRENCY_WEB_SEARCH_BRAVE: '2',
    });
    expect(config).toMatchObject({
      ssrfAllowedHosts: ['wiki.internal', '127.0.0.1:4000', '[::1]:5000'],
      fetchMaxBytes: 2048,
      fetchTimeoutMs: 3000,
      pluginCacheTtlSeconds: 0,
      pluginConcurrency: 8,
    });
    expect(concurrencyFor(config, 'web-search:searxng')).toBe(32);
    expect(concurrencyFor(config, 'web-search:brave')).toBe(2);
    expect(concurrencyFor(config, 'web-search:tavily')).toBe(8);
  });

  it.each([
    [{ FETCH_MAX_BYTES: 'lots' }, 'FETCH_MAX_BYTES'],
    [{ FETCH_TIMEOUT_MS: '0' }, 'FETCH_TIMEOUT_MS'],
    [{ PLUGIN_CACHE_TTL_SECONDS: '-1' }, 'PLUGIN_CACHE_TTL_SECONDS'],
    [{ PLUGIN_CONCURRENCY: '0' }, 'PLUGIN_CONCURRENCY'],
    [{ PLUGIN_CONCURRENCY_SEARXNG: 'many' }, 'PLUGIN_CONCURRENCY_SEARXNG'],
    [{ SSRF_ALLOWED_HOSTS: 'http://wiki.internal/' }, 'SSRF_ALLOWED_HOSTS'],
  ])('names the variable of a bad value: %p', (env, name) => {
    expect(() => readNetConfig(env)).toThrow(name);
  });
});
