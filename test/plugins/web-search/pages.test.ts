import { createWebSearchPlugin } from '../../../src/plugins/web-search';
import { backendClient } from '../../../src/net/backend-client';
import type { HttpClient } from '../../../src/net/http-client';
import type { PluginInput } from '../../../src/plugins/types';
import { articlePage, startPageServer, type PageServer } from '../../simulator/plugins/page-server';
import type { SearchSimulator } from '../../simulator/plugins/search-server';
import { configFor, roomyContext, settingsWith, SIMULATORS } from './backends';

const input: PluginInput = { messages: [{ role: 'user', content: 'moon phases' }], query: 'moon phases', files: [], images: [], args: null };

/** A client that notes each URL it was asked for, over the real backend client (the SSRF-safe one refuses loopback pages). */
function recording(urls: string[]): HttpClient {
  return (request) => {
    urls.push(request.url);
    return backendClient(request);
  };
}

describe('web-search: reading result pages', () => {
  let pages: PageServer;
  let sim: SearchSimulator;
  beforeAll(async () => {
    pages = await startPageServer({
      '/article': { body: articlePage('Moon phases explained', ['The Moon has eight phases.', 'A full cycle takes 29.5 days.']) },
      '/broken': { status: 500, body: '<h1>Internal error</h1>' },
      '/plain': { contentType: 'text/plain; charset=utf-8', body: 'Plain   text\n\nabout the Moon.' },
      '/image': { contentType: 'image/png', body: 'PNG' },
      '/long': {
        body: articlePage(
          'Long',
          Array.from({ length: 200 }, (_, i) => `Sentence number ${i} about the Moon.`),
        ),
      },
    });
    const resultUrls = ['/article', '/broken', '/plain', '/image', '/long'].map((path) => `${pages.url}${path}`);
    sim = await SIMULATORS.searxng({ resultUrls });
  });
  afterAll(async () => {
    await sim.close();
    await pages.close();
  });
  beforeEach(() => {
    pages.requests.length = 0;
  });

  test('the top pages go through ctx.untrusted, reduced to their article text; a failing page is a warning, not a failure', async () => {
    const viaBackend: string[] = [];
    const viaUntrusted: string[] = [];
    const plugin = createWebSearchPlugin(configFor('searxng', sim));
    const ctx = roomyContext(settingsWith({ fetch_pages: 4 }), { backend: recording(viaBackend), untrusted: recording(viaUntrusted) });
    const output = await plugin.run(input, ctx);

    expect(viaBackend.every((url) => url.startsWith(`${sim.url}/search?`))).toBe(true);
    expect(viaUntrusted).toEqual(['/article', '/broken', '/plain', '/image'].map((path) => `${pages.url}${path}`));
    expect(output.warning).toBe('web-search: 2 of 4 result pages could not be read; their search snippets were used instead');

    const context = output.context ?? '';
    expect(context).toContain('Moon phases explained\n\nThe Moon has eight phases.\n\nA full cycle takes 29.5 days.');
    for (const furniture of ['Menu item', 'Site name', 'Copyright footer', 'Related links', 'never shown', 'color: red'])
      expect(context).not.toContain(furniture);
    expect(context).toContain('Plain text about the Moon.');
    expect(context).toContain(
      `[2] Result 2 about moon phases — ${pages.url}/broken\nPublished: 2026-11-19T08:00:00Z\nSnippet 2: what the web says about moon phases.`,
    );
    // search_results keep the search snippets; the page text is for the model only.
    expect(output.searchResults[0]?.snippet).toBe('Snippet 1: what the web says about moon phases.');
  });

  test('page text is cut to WEB_SEARCH_PAGE_MAX_CHARS', async () => {
    const longOnly = await SIMULATORS.searxng({ resultUrls: [`${pages.url}/long`] });
    try {
      const plugin = createWebSearchPlugin(configFor('searxng', longOnly, { WEB_SEARCH_PAGE_MAX_CHARS: '300' }));
      const output = await plugin.run(input, roomyContext(settingsWith({ fetch_pages: 1 })));
      const text = (output.context ?? '').split('\n').slice(-1)[0] ?? '';
      expect(output.warning).toBeUndefined();
      expect(output.context).toContain('Sentence number 0 about the Moon.');
      expect(output.context).not.toContain('Sentence number 199');
      expect(text.endsWith('…')).toBe(true);
    } finally {
      await longOnly.close();
    }
  });

  test('with fetch_pages 0 no page is fetched', async () => {
    const plugin = createWebSearchPlugin(configFor('searxng', sim));
    const output = await plugin.run(input, roomyContext(settingsWith({ fetch_pages: 0 })));
    expect(pages.requests).toEqual([]);
    expect(output.context).toContain('Snippet 1: what the web says about moon phases.');
  });
});
