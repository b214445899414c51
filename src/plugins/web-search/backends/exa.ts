import { z } from 'zod';
import type { WebSearchAdapter } from '../types';
import { cleanText, joinUrl, parseBody, parseItems, resultUrl } from './parse';

const SERVICE = 'exa';

/** Characters of each result's text Exa is asked for (contents for up to 10 results are in the request's price). */
const TEXT_MAX_CHARACTERS = 1000;

const bodySchema = z.object({ results: z.array(z.unknown()) });

const itemSchema = z.object({
  url: resultUrl,
  title: z.string().nullish(),
  text: z.string().nullish(),
  /** Present when highlights were asked for; preferred over the text as the snippet. */
  highlights: z.array(z.string()).nullish(),
  score: z.number().nullish(),
  publishedDate: z.string().nullish(),
});

export const exaAdapter: WebSearchAdapter = {
  buildRequest({ query, count }, { baseUrl, apiKey }) {
    const body = { query, numResults: count, type: 'auto', contents: { text: { maxCharacters: TEXT_MAX_CHARACTERS } } };
    return {
      method: 'POST',
      url: joinUrl(baseUrl, '/search'),
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': apiKey ?? '' },
      body: JSON.stringify(body),
    };
  },

  parseResponse(body, max) {
    const { results } = parseBody(bodySchema, body, SERVICE);
    return parseItems(itemSchema, results, max).map((item) => ({
      title: cleanText(item.title) || item.url,
      url: item.url,
      snippet: item.highlights?.length ? cleanText(item.highlights.join(' … ')) : cleanText(item.text),
      score: item.score ?? 0,
      publishedAt: item.publishedDate ?? undefined,
    }));
  },
};
