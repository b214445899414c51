import { z } from 'zod';
import { readWebSearchConfig, WEB_SEARCH_BACKENDS } from '../../../src/config/plugins/web-search';
import { ApiError } from '../../../src/errors/api-error';
import { createWebSearchPlugin } from '../../../src/plugins/web-search';
import type { PluginInput } from '../../../src/plugins/types';
import { UpstreamError } from '../../../src/errors/upstream-error';
import type { SearchSimulator } from '../../simulator/plugins/search-server';
import { configFor, roomyContext, settingsWith, SIMULATORS } from './backends';

const NOW = new Date('2026-11-23T20:00:00Z');

function inputOf(query: string, args: Record<string, unknown> | null = null): PluginInput {
  return { messages: [{ role: 'user', content: query }], query, files: [], images: [], args };
}

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

/** Where each backend's key travels, as its simulator checks it. */
const KEY_HEADER: Record<string, string | null> = { searxng: null, brave: 'x-subscription-token', tavily: 'authorization', exa: 'x-api-key' };

describe.each(WEB_SEARCH_BACKENDS)('web-search against %s', (backend) => {
  let sim: SearchSimulator;
  beforeAll(async () => {
    sim = await SIMULATORS[backend]();
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    sim.requests.length = 0;
    sim.faults.reset();
  });

  test('searches for the tool call argument, sends the key, and keeps max_results results', async () => {
    const plugin = createWebSearchPlugin(configFor(backend, sim), { now: () => NOW });
    const output = await plugin.run(inputOf('the whole user message', { query: 'solar eclipse 2027' }), roomyContext(settingsWith({ max_results: 3 })));
    expect(sim.requests).toHaveLength(1);
    const header = KEY_HEADER[backend];
    if (header) expect(String(sim.requests[0]?.headers[header])).toContain('sim-search-key');
    expect(JSON.stringify(sim.requests[0]?.params ?? {}) + JSON.stringify(sim.requests[0]?.body ?? {})).toContain('solar eclipse 2027');
    expect(output.searchResults.map((item) => item.url)).toEqual([
      'https://example.org/result-1',
      'https://example.org/result-2',
      'https://example.org/result-3',
    ]);
    expect(output.context?.startsWith('A web search was conducted on 2026-11-23 for "solar eclipse 2027".')).toBe(true);
    expect(plugin.backendKey).toBe(`web-search:${backend}`);
  });

  if (backend !== 'searxng') {
    test('a key the backend refuses is an authentication failure, not retried', async () => {
      const plugin = createWebSearchPlugin(configFor(backend, sim, { [`${backend.toUpperCase()}_API_KEY`]: 'wrong-key' }));
      const error = await failureOf(plugin.run(inputOf('anything'), roomyContext(settingsWith())));
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({ kind: 'authentication', status: 401, provider: backend });
      expect((error as UpstreamError).retryable).toBe(false);
    });
  }
});

describe('web-search output', () => {
  let sim: SearchSimulator;
  beforeAll(async () => {
    sim = await SIMULATORS.tavily();
  });
  afterAll(() => sim.close());

  test('the model sees a dated block of numbered sources matching search_results', async () => {
    const plugin = createWebSearchPlugin(configFor('tavily', sim), { now: () => NOW });
    const output = await plugin.run(inputOf('  tide   tables\n'), roomyContext(settingsWith({ max_results: 2 })));
    expect(output.context).toBe(
      [
        'A web search was conducted on 2026-11-23 for "tide tables". Use the following results where they are relevant, and cite each source you use by its number in square brackets, e.g. [1].',
        'Results:',
        '[1] Result 1 about tide tables — https://example.org/result-1\nSnippet 1: what the web says about tide tables.',
        '[2] Result 2 about tide tables — https://example.org/result-2\nPublished: 2026-11-19T08:00:00Z\nSnippet 2: what the web says about tide tables.',
      ].join('\n\n'),
    );
    expect(output.searchResults).toEqual([
      {
        index: 1,
        source: 'web',
        title: 'Result 1 about tide tables',
        url: 'https://example.org/result-1',
        score: 1,
        snippet: 'Snippet 1: what the web says about tide tables.',
      },
      {
        index: 2,
        source: 'web',
        title: 'Result 2 about tide tables',
        url: 'https://example.org/result-2',
        score: 0.95,
        snippet: 'Snippet 2: what the web says about tide tables.',
        published_at: '2026-11-19T08:00:00Z',
      },
    ]);
    expect(output.artifacts).toEqual([]);
  });

  test('no results still tell the model a search was made', async () => {
    sim.faults.push({ kind: 'empty' });
    const plugin = createWebSearchPlugin(configFor('tavily', sim), { now: () => NOW });
    const output = await plugin.run(inputOf('zzqx'), roomyContext(settingsWith()));
    expect(output.context).toBe('A web search was conducted on 2026-11-23 for "zzqx" and found no results.');
  });

  test('a request with no text to search for names the field', async () => {
    const plugin = createWebSearchPlugin(configFor('tavily', sim));
    const error = await failureOf(plugin.run(inputOf('   '), roomyContext(settingsWith())));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'messages' });
  });

  test('a long message is cut to a 400-character query at a word boundary', async () => {
    const plugin = createWebSearchPlugin(configFor('tavily', sim));
    await plugin.run(inputOf('word '.repeat(200)), roomyContext(settingsWith()));
    const sent = (sim.requests.at(-1)?.body as { query: string }).query;
    expect(sent.length).toBeLessThanOrEqual(400);
    expect(sent.endsWith('word')).toBe(true);
  });

  test('the tool the model sees takes one described query string', () => {
    const plugin = createWebSearchPlugin(configFor('tavily', sim));
    const schema = z.toJSONSchema(plugin.toolParameters) as { properties: Record<string, { type: string; description?: string }>; required: string[] };
    expect(schema.required).toEqual(['query']);
    expect(schema.properties.query).toMatchObject({ type: 'string' });
    expect(schema.properties.query?.description).toMatch(/search the web/i);
  });
});

describe('web-search availability', () => {
  test('SearXNG without a base URL is unavailable and says which variable is missing', () => {
    const plugin = createWebSearchPlugin(readWebSearchConfig({}));
    expect(plugin.availability()).toEqual({ available: false, reason: 'web-search: SEARXNG_BASE_URL is not set' });
  });

  test('a keyed backend without its key is unavailable, and does not run', async () => {
    const plugin = createWebSearchPlugin(readWebSearchConfig({ WEB_SEARCH_BACKEND: 'exa' }));
    expect(plugin.availability()).toEqual({ available: false, reason: 'web-search: EXA_API_KEY is not set' });
    await expect(plugin.run(inputOf('x'), roomyContext(settingsWith()))).rejects.toMatchObject({ kind: 'bad_request' });
  });

  test('a configured backend is available', () => {
    const plugin = createWebSearchPlugin(readWebSearchConfig({ WEB_SEARCH_BACKEND: 'brave', BRAVE_API_KEY: 'k' }));
    expect(plugin.availability()).toEqual({ available: true });
  });
});
