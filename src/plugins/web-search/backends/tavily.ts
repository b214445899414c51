import { z } from 'zod';
import type { WebSearchAdapter } from '../types';
import { cleanText, joinUrl, parseBody, parseItems, resultUrl } from './parse';

const SERVICE = 'tavily';

const bodySchema = z.object({ results: z.array(z.unknown()) });

const itemSchema = z.object({
  url: resultUrl,
  title: z.string().nullish(),
  /** The query-relevant part of the page Tavily extracted. */
  content: z.string().nullish(),
  score: z.number().nullish(),
  /** Given for the `news` topic only. */
  published_date: z.string().nullish(),
});

export const tavilyAdapter: WebSearchAdapter = {
  buildRequest({ query, count }, { baseUrl, apiKey }) {
    // `basic` depth costs one credit; the answer, images and raw pages are not asked for (we fetch pages ourselves).
    const body = { query, max_results: count, search_depth: 'basic', include_answer: false, include_images: false, include_raw_content: false };
    return {
      method: 'POST',
      url: joinUrl(baseUrl, '/search'),
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${apiKey ?? ''}` },
      body: JSON.stringify(body),
    };
  },

  parseResponse(body, max) {
    const { results } = parseBody(bodySchema, body, SERVICE);
    return parseItems(itemSchema, results, max).map((item) => ({
      title: cleanText(item.title) || item.url,
      url: item.url,
      snippet: cleanText(item.content),
      score: item.score ?? 0,
      publishedAt: item.published_date ?? undefined,
    }));
  },
};
