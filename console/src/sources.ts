import type { SearchResultItem } from '../../src/domain/plugin-output';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A source as the page shows it: what the API gave, `[masked]` text included (privacy level 2). */
export type Source = Pick<SearchResultItem, 'index' | 'title' | 'snippet'> & { source: string; url: string; fileName: string };

/**
 * What the request's plugins found (web pages, the Space's files), numbered as the answer cites them: its
 * response's `metadata.search_results.items`, as `GET /v1/logs/{id}` shows it (masked at privacy level 2,
 * like the rest of its content). Empty when the log has none.
 */
export function sourcesOf(response: unknown): Source[] {
  const metadata = isObject(response) && isObject(response.metadata) ? response.metadata : {};
  const items = isObject(metadata.search_results) && Array.isArray(metadata.search_results.items) ? metadata.search_results.items : [];
  return items.filter(isObject).map((item, i) => ({
    index: typeof item.index === 'number' ? item.index : i + 1,
    source: text(item.source),
    title: text(item.title),
    url: text(item.url),
    fileName: text(item.file_name),
    snippet: text(item.snippet),
  }));
}

/** A source's address, when it is one a browser may open (never `[masked]`, never a `javascript:` one). */
export function linkOf(source: Source): string | null {
  return /^https?:\/\//i.test(source.url) ? source.url : null;
}
