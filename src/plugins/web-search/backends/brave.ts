import { z } from 'zod';
import type { WebSearchAdapter } from '../types';
import { cleanText, joinUrl, parseBody, parseItems, resultUrl } from './parse';

const SERVICE = 'brave';

/** Brave takes a bare language code (`en`, `de`), not a locale. */
function searchLang(language: string | null): string | null {
  const primary = language?.split(/[-_]/)[0]?.toLowerCase();
  return primary && /^[a-z]{2,3}$/.test(primary) ? primary : null;
}

/** `type` is always `search`; `web` is absent when nothing was found on the web. */
const bodySchema = z.object({
  type: z.literal('search'),
  web: z.object({ results: z.array(z.unknown()) }).nullish(),
});

const itemSchema = z.object({
  url: resultUrl,
  title: z.string().nullish(),
  description: z.string().nullish(),
  /** The page's date as Brave resolved it (ISO-like), or its age in words ("2 days ago"). */
  page_age: z.string().nullish(),
  age: z.string().nullish(),
});

export const braveAdapter: WebSearchAdapter = {
  buildRequest({ query, count, language }, { baseUrl, apiKey }) {
    const params = new URLSearchParams({ q: query, count: String(count), text_decorations: 'false' });
    const lang = searchLang(language);
    if (lang) params.set('search_lang', lang);
    return {
      method: 'GET',
      url: `${joinUrl(baseUrl, '/res/v1/web/search')}?${params}`,
      headers: { accept: 'application/json', 'x-subscription-token': apiKey ?? '' },
    };
  },

  parseResponse(body, max) {
    const { web } = parseBody(bodySchema, body, SERVICE);
    // Brave gives no score: the reciprocal rank keeps "higher is better".
    return parseItems(itemSchema, web?.results ?? [], max).map((item, rank) => ({
      title: cleanText(item.title) || item.url,
      url: item.url,
      snippet: cleanText(item.description),
      score: 1 / (rank + 1),
      publishedAt: item.page_age ?? item.age ?? undefined,
    }));
  },
};
