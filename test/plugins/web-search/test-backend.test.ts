import { readWebSearchConfig } from '../../../src/config/plugins/web-search';
import type { HttpClient } from '../../../src/net/http-client';
import { createWebSearchPlugin } from '../../../src/plugins/web-search';
import { roomyContext, settingsWith } from './backends';

const NOW = new Date('2026-11-23T20:00:00Z');
/** A client that fails the test if anything calls it: the test backend makes no network call. */
const noNetwork: HttpClient = () => Promise.reject(new Error('the test backend must not call the network'));

describe('web-search with WEB_SEARCH_BACKEND=test', () => {
  test('is chosen only by name: no base URL or key, free unless WEB_SEARCH_COST_USD says otherwise', () => {
    expect(readWebSearchConfig({ WEB_SEARCH_BACKEND: 'TEST' })).toEqual({
      backend: 'test',
      baseUrl: null,
      apiKey: null,
      costUsd: 0,
      timeoutMs: 10_000,
      pageTimeoutMs: 5_000,
      pageMaxBytes: 2 * 1024 * 1024,
      pageMaxChars: 4_000,
    });
    expect(readWebSearchConfig({ WEB_SEARCH_BACKEND: 'test', WEB_SEARCH_COST_USD: '0.001' }).costUsd).toBe(0.001);
    expect(() => readWebSearchConfig({ WEB_SEARCH_BACKEND: 'test', WEB_SEARCH_TIMEOUT_MS: 'soon' })).toThrow(/WEB_SEARCH_TIMEOUT_MS/);
  });

  test('is available and answers the fixed, documented results for any query, reading no page', async () => {
    const plugin = createWebSearchPlugin(readWebSearchConfig({ WEB_SEARCH_BACKEND: 'test' }), { now: () => NOW });
    expect(plugin.availability()).toEqual({ available: true });
    expect(plugin.backendKey).toBe('web-search:test');
    const ctx = roomyContext(settingsWith({ fetch_pages: 3 }), { backend: noNetwork, untrusted: noNetwork });
    const output = await plugin.run({ messages: [{ role: 'user', content: 'anything' }], query: 'anything', files: [], images: [], args: null }, ctx);
    expect(output.searchResults.map(({ index, url, title }) => ({ index, url, title }))).toEqual(
      [1, 2, 3].map((n) => ({ index: n, url: `https://example.com/switchyard-test/${n}`, title: `Switchyard test search result ${n}` })),
    );
    expect(output).toMatchObject({ costUsd: 0, artifacts: [] });
    expect(output.warning).toBeUndefined();
    expect(output.context).toContain("This is a fixed result from Switchyard's test web-search backend");
    const two = await plugin.run(
      { messages: [], query: 'other', files: [], images: [], args: { query: 'other' } },
      roomyContext(settingsWith({ max_results: 2 }), { backend: noNetwork, untrusted: noNetwork }),
    );
    expect(two.searchResults).toHaveLength(2);
  });
});
