import { z } from 'zod';
import type { WebSearchAdapter } from '../types';
import { cleanText, joinUrl, parseBody, parseItems, resultUrl } from './parse';

const SERVICE = 'searxng';

/** `GET /search?format=json`: the instance must list `json` in `search.formats`, else it answers 403. */
const bodySchema = z.object({ results: z.array(z.unknown()) });

const itemSchema = z.object({
  url: resultUrl,
  title: z.string().nullish(),
  content: z.string().nullish(),
  /** The merged score of the engines that found it. */
  score: z.number().nullish(),
  publishedDate: z.string().nullish(),
});

export const searxngAdapter: WebSearchAdapter = {
  buildRequest({ query, language }, { baseUrl }) {
    const params = new URLSearchParams({ q: query, format: 'json', pageno: '1' });
    if (language) params.set('language', language);
    return { method: 'GET', url: `${joinUrl(baseUrl, '/search')}?${params}`, headers: { accept: 'application/json' } };
  },

  parseResponse(body, max) {
    const { results } = parseBody(bodySchema, body, SERVICE);
    return parseItems(itemSchema, results, max).map((item) => ({
      title: cleanText(item.title) || item.url,
      url: item.url,
      snippet: cleanText(item.content),
      score: item.score ?? 0,
      publishedAt: item.publishedDate ?? undefined,
    }));
  },
};
