import { z } from 'zod';
import { UpstreamError } from '../../../errors/upstream-error';
import { snippetText } from '../readable-text';

/** Parses a backend's body with its schema; a body of another shape is the backend's fault. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, service: string): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new UpstreamError({ kind: 'invalid_response', provider: service, status: 200, message: `${service} answered in an unexpected shape` });
  }
  return parsed.data;
}

/**
 * Keeps the items of a result list that have what a source needs (a URL); one odd item (a map, an
 * infobox) is dropped rather than failing the whole search. With `max`, it stops once it holds `max`
 * items of distinct URLs: the plugin keeps no more than that (the first item of each URL), so the rest
 * of the list (SearXNG sends a whole page whatever was asked) is never validated nor cleaned.
 */
export function parseItems<T extends z.ZodType<{ url: string }>>(schema: T, items: readonly unknown[], max = Infinity): z.infer<T>[] {
  const kept: z.infer<T>[] = [];
  const urls = new Set<string>();
  for (const item of items) {
    if (urls.size >= max) break;
    const parsed = schema.safeParse(item);
    if (!parsed.success) continue;
    kept.push(parsed.data);
    urls.add(parsed.data.url);
  }
  return kept;
}

/** A base URL and a path, without doubling or dropping the slash between them. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/** Title and snippet as plain text; an empty title falls back to the URL. */
export function cleanText(value: string | null | undefined): string {
  return value ? snippetText(value) : '';
}

/**
 * A result's URL: http(s) only. Results reach clients as `search_results` and citations, which a
 * UI renders as links, so a `javascript:` or `data:` URL from a search index is dropped with its item.
 */
export const resultUrl = z.string().refine((text) => {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
});
