import { Agent, request } from 'undici';

/**
 * What the floors of `bench:plugins` do for web-search and space-search (tools/bench/plugin-floor.ts in one
 * process, tools/bench/queue-floor's worker behind a queue): call the SearXNG simulator and the embeddings
 * simulator at once, and put their results in a system message before the model call, with the
 * `metadata` the benchmark's check reads.
 */
export const floorAgent = new Agent({ connections: 512, keepAliveTimeout: 30_000 });

export interface PluginBackendUrls {
  searxng: string;
  embeddings: string;
}

interface SearxngAnswer {
  results?: { url: string; title?: string; content?: string }[];
}
interface EmbeddingsAnswer {
  data?: { embedding: number[] }[];
}
interface ChatMessage {
  role: string;
  content: string;
}

export async function callJson<T>(url: string, init: { method: 'GET' | 'POST'; body?: object }): Promise<T> {
  const res = await request(url, {
    method: init.method,
    dispatcher: floorAgent,
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
  return (await res.body.json()) as T;
}

/** The messages to send the model (sources first), and the metadata to answer with. */
export async function withPluginContext(messages: ChatMessage[], urls: PluginBackendUrls): Promise<{ messages: ChatMessage[]; metadata: object }> {
  const question = messages.at(-1)?.content ?? '';
  const [web, vectors] = await Promise.all([
    callJson<SearxngAnswer>(`${urls.searxng}/search?${new URLSearchParams({ q: question, format: 'json', pageno: '1' })}`, { method: 'GET' }),
    callJson<EmbeddingsAnswer>(`${urls.embeddings}/embeddings`, { method: 'POST', body: { model: 'text-embedding-3-small', input: [question] } }),
  ]);
  const webItems = (web.results ?? []).slice(0, 5).map((r, i) => ({ index: i + 1, url: r.url, title: r.title ?? r.url, snippet: r.content ?? '' }));
  // Stands in for the ranked Space chunks, so the check sees space results.
  const spaceItems = [{ index: webItems.length + 1, file_id: 'floor', snippet: `${vectors.data?.[0]?.embedding.length ?? 0} dimensions` }];
  const context = [...webItems, ...spaceItems].map((item) => `[${item.index}] ${item.snippet}`).join('\n');
  return {
    messages: [{ role: 'system', content: `Sources:\n${context}` }, ...messages],
    metadata: {
      search_results: { items: [...webItems, ...spaceItems] },
      extra: {
        plugins: [
          { id: 'web-search', status: 'ok' },
          { id: 'space-search', status: 'ok' },
        ],
      },
    },
  };
}
