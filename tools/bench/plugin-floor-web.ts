import { request } from 'undici';
import type { SearchResultItem } from '../../src/plugins/types';
import { webSearchContext } from '../../src/plugins/web-search/context';
import { pageText, snippetText, truncate } from '../../src/plugins/web-search/readable-text';
import { callJson, floorAgent } from './floor-plugins';

/**
 * The plugin floor's web-search (tools/bench/plugin-floor-worker.ts): the same work as Switchyard's
 * (src/plugins/web-search/ with the SearXNG backend) without its schema checks, limiter or timeouts:
 * - the same SearXNG call (`GET /search?q=…&format=json&pageno=1`);
 * - the first `max_results` (5) results of distinct http(s) URLs, titles and snippets made plain text
 *   and the snippets cut to 1,000 characters (Switchyard's `snippetText` and `truncate`);
 * - the top `fetch_pages` result pages fetched at once and reduced to readable text (its `pageText`),
 *   a page that fails keeping its snippet;
 * - the dated block of numbered sources the model reads (its `webSearchContext`).
 * `fetch_pages` is the Space's setting; its default, 0, is what `bench:plugins` runs with unless
 * `--fetch-pages` is given.
 */

const MAX_RESULTS = 5;
/** Characters of a search snippet kept (web-search's SNIPPET_MAX_CHARS). */
const SNIPPET_MAX_CHARS = 1000;
/** Longest query sent (web-search's MAX_QUERY_CHARS). */
const MAX_QUERY_CHARS = 400;
/** The service's defaults: WEB_SEARCH_PAGE_MAX_BYTES and WEB_SEARCH_PAGE_MAX_CHARS. */
const PAGE_MAX_BYTES = 2 * 1024 * 1024;
const PAGE_MAX_CHARS = 4000;

interface SearxngAnswer {
  results?: { url?: unknown; title?: string | null; content?: string | null; score?: number | null; publishedDate?: string | null }[];
}

interface WebResult {
  title: string;
  url: string;
  snippet: string;
  score: number;
  publishedAt?: string;
}

/** web-search's `queryOf`: whitespace collapsed, a long question cut at a word boundary. */
function queryOf(question: string): string {
  const text = question.replace(/\s+/g, ' ').trim();
  if (text.length <= MAX_QUERY_CHARS) return text;
  const cut = text.slice(0, MAX_QUERY_CHARS);
  const lastSpace = cut.lastIndexOf(' ');
  return lastSpace > MAX_QUERY_CHARS / 2 ? cut.slice(0, lastSpace) : cut;
}

function resultsOf(answer: SearxngAnswer): WebResult[] {
  const kept: WebResult[] = [];
  const urls = new Set<string>();
  for (const item of answer.results ?? []) {
    if (kept.length >= MAX_RESULTS) break;
    const url = item.url;
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url) || urls.has(url)) continue;
    urls.add(url);
    const title = item.title ? snippetText(item.title) : '';
    kept.push({
      title: title || url,
      url,
      snippet: item.content ? snippetText(item.content) : '',
      score: item.score ?? 0,
      ...(item.publishedDate ? { publishedAt: item.publishedDate } : {}),
    });
  }
  return kept;
}

/** One result page's readable text, or null (the snippet stands in). */
async function pageOf(url: string): Promise<string | null> {
  try {
    const res = await request(url, { method: 'GET', dispatcher: floorAgent, headers: { accept: 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8' } });
    const body = Buffer.from(await res.body.arrayBuffer());
    const type = String(res.headers['content-type'] ?? '').toLowerCase();
    if (res.statusCode !== 200 || body.length > PAGE_MAX_BYTES) return null;
    if (type.includes('html')) return pageText(body.toString('utf8'), PAGE_MAX_CHARS) || null;
    if (type.startsWith('text/plain')) return truncate(body.toString('utf8').replace(/\s+/g, ' ').trim(), PAGE_MAX_CHARS) || null;
    return null;
  } catch {
    return null;
  }
}

/** web-search for one question: the model's context and the `search_results` items. */
export async function floorWebSearch(
  searxngUrl: string,
  { question, fetchPages }: { question: string; fetchPages: number },
): Promise<{ context: string; searchResults: SearchResultItem[] }> {
  const query = queryOf(question);
  const answer = await callJson<SearxngAnswer>(`${searxngUrl}/search?${new URLSearchParams({ q: query, format: 'json', pageno: '1' })}`, { method: 'GET' });
  const results = resultsOf(answer);
  const pages = fetchPages > 0 ? await Promise.all(results.slice(0, fetchPages).map((result) => pageOf(result.url))) : [];
  const searchResults: SearchResultItem[] = results.map((result, i) => ({
    index: i + 1,
    source: 'web',
    title: result.title,
    url: result.url,
    score: result.score,
    snippet: truncate(result.snippet, SNIPPET_MAX_CHARS),
    ...(result.publishedAt ? { published_at: result.publishedAt } : {}),
  }));
  const sources = searchResults.map((item, i) => ({ title: item.title, url: item.url ?? '', text: pages[i] ?? item.snippet, publishedAt: item.published_at }));
  return { context: webSearchContext({ query, date: new Date(), sources }), searchResults };
}
