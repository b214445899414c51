import { z } from 'zod';
import { WEB_SEARCH_TEST_BACKEND, type WebSearchConfig } from '../../config/plugins/web-search';
import { UpstreamError } from '../../errors/upstream-error';
import { webSearchSettings } from '../../schemas/plugin-settings';
import type { Availability, Plugin, PluginContext, PluginInput, PluginOutput, SearchResultItem } from '../types';
import { WEB_SEARCH_ADAPTERS } from './backends';
import { testWebResults } from './backends/test';
import { webSearchContext } from './context';
import { fetchPages } from './fetch-pages';
import { MAX_QUERY_CHARS, queryOf } from './query';
import { truncate } from './readable-text';
import type { WebResult } from './types';
import { settingsReader } from '../settings-reader';

const readSettings = settingsReader(webSearchSettings);

type WebSearchSettings = z.infer<typeof webSearchSettings>;

/** Characters of a search snippet kept (the model's context and `search_results`). */
const SNIPPET_MAX_CHARS = 1000;

/** No `maxLength`: a longer query from the model is cut (queryOf), not refused as a bad tool call. */
const toolParameters = z.object({
  query: z
    .string()
    .min(1)
    .describe(
      `What to search the web for: a few keywords or a short question (under ${MAX_QUERY_CHARS} characters), in the language the results should be in.`,
    ),
});

export interface WebSearchPluginDeps {
  /** The clock behind the date the model is told (tests fix it). */
  now?: () => Date;
}

export function webSearchAvailability(config: WebSearchConfig): Availability {
  if (config.backend === WEB_SEARCH_TEST_BACKEND) return { available: true };
  if (!config.baseUrl) return { available: false, reason: `web-search: ${config.backend.toUpperCase()}_BASE_URL is not set` };
  if (config.backend !== 'searxng' && !config.apiKey) return { available: false, reason: `web-search: ${config.backend.toUpperCase()}_API_KEY is not set` };
  return { available: true };
}

/** The first result for each URL, at most `max`: backends sometimes list one page twice. */
function distinct(results: WebResult[], max: number): WebResult[] {
  const seen = new Set<string>();
  return results.filter((result) => !seen.has(result.url) && seen.add(result.url)).slice(0, max);
}

async function search(
  config: WebSearchConfig,
  { query, settings, ctx }: { query: string; settings: WebSearchSettings; ctx: PluginContext },
): Promise<WebResult[]> {
  if (config.backend === WEB_SEARCH_TEST_BACKEND) return testWebResults(settings.max_results);
  const adapter = WEB_SEARCH_ADAPTERS[config.backend];
  const request = adapter.buildRequest(
    { query, count: settings.max_results, language: settings.language },
    { baseUrl: config.baseUrl ?? '', apiKey: config.apiKey },
  );
  const remaining = ctx.deadline - Date.now();
  if (remaining <= 0) throw new UpstreamError({ kind: 'timeout', provider: config.backend, message: 'web-search had no time left to search' });
  const response = await ctx.backend({ ...request, signal: ctx.signal, timeoutMs: Math.min(config.timeoutMs, remaining), service: config.backend });
  return distinct(adapter.parseResponse(response.json(), settings.max_results), settings.max_results);
}

/** The readable text of the top `count` results' pages (null where one could not be read). */
async function readPages(
  config: WebSearchConfig,
  { results, count, ctx }: { results: WebResult[]; count: number; ctx: PluginContext },
): Promise<(string | null)[]> {
  const urls = results.slice(0, count).map((result) => result.url);
  // The test backend's pages do not exist: its snippets stand in for them.
  if (urls.length === 0 || config.backend === WEB_SEARCH_TEST_BACKEND) return [];
  return fetchPages(urls, {
    client: ctx.untrusted,
    signal: ctx.signal,
    deadline: ctx.deadline,
    limits: { timeoutMs: config.pageTimeoutMs, maxBytes: config.pageMaxBytes, maxChars: config.pageMaxChars },
    logger: ctx.logger,
  });
}

function searchResultItem(result: WebResult, i: number): SearchResultItem {
  return {
    index: i + 1,
    source: 'web',
    title: result.title,
    url: result.url,
    score: result.score,
    snippet: truncate(result.snippet, SNIPPET_MAX_CHARS),
    ...(result.publishedAt ? { published_at: result.publishedAt } : {}),
  };
}

async function run(config: WebSearchConfig, { input, ctx, now }: { input: PluginInput; ctx: PluginContext; now: () => Date }): Promise<PluginOutput> {
  const availability = webSearchAvailability(config);
  if (!availability.available) throw new UpstreamError({ kind: 'bad_request', provider: config.backend, message: availability.reason });
  const settings = readSettings(ctx.settings);
  const query = queryOf(input);
  const results = await search(config, { query, settings, ctx });
  const pages = await readPages(config, { results, count: settings.fetch_pages, ctx });
  const failed = pages.filter((page) => page === null).length;
  const searchResults = results.map(searchResultItem);
  const sources = searchResults.map((item, i) => ({ title: item.title, url: item.url ?? '', text: pages[i] ?? item.snippet, publishedAt: item.published_at }));
  return {
    context: webSearchContext({ query, date: now(), sources }),
    searchResults,
    artifacts: [],
    costUsd: config.costUsd,
    ...(failed ? { warning: `web-search: ${failed} of ${pages.length} result pages could not be read; their search snippets were used instead` } : {}),
  };
}

/**
 * `web-search`: searches the configured backend (SearXNG, Brave, Tavily or Exa; or the test backend's fixed results) and, when the Space
 * asks for it, reads the top result pages through the SSRF-safe client. Its output is a dated block of
 * numbered sources for the model and the matching `search_results` items.
 */
export function createWebSearchPlugin(config: WebSearchConfig, deps: WebSearchPluginDeps = {}): Plugin {
  const now = deps.now ?? (() => new Date());
  return {
    id: 'web-search',
    phase: 'before_model',
    description:
      'Search the web for current information. Use it when the answer depends on recent events, facts that may have changed, or sources the user wants cited. Returns numbered results (title, URL, text) to cite as [1], [2], ...',
    toolParameters,
    settingsSchema: webSearchSettings,
    backendKey: `web-search:${config.backend}`,
    availability: () => webSearchAvailability(config),
    run: (input, ctx) => run(config, { input, ctx, now }),
  };
}
