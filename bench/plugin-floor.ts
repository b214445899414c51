import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { runChildEntry } from './child-entry';

/**
 * Child-process entry of `bench:plugins`' floor cell: the least any gateway must do for one completion
 * with web-search and space-search, and nothing more. It reads the JSON body, calls the SearXNG
 * simulator and the embeddings simulator at once, then the model with both results in a system message,
 * and answers `chat.completion` JSON with the `metadata` the benchmark's check reads. No key check, no
 * queue, no database (so no full-text ranking and no log), no limits, no retries: what it reaches on
 * this machine, with the same simulators and load generator, bounds what Switchyard can reach.
 * argv: SearXNG base URL, embeddings base URL, model base URL. Prints `{"url": ...}` once listening.
 */
const [searxngUrl = '', embeddingsUrl = '', modelUrl = ''] = process.argv.slice(2);
const agent = new Agent({ connections: 512, keepAliveTimeout: 30_000 });

interface SearxngAnswer {
  results?: { url: string; title?: string; content?: string }[];
}
interface EmbeddingsAnswer {
  data?: { embedding: number[] }[];
}
interface ModelAnswer {
  id: string;
  choices: unknown[];
  usage?: unknown;
}

async function callJson<T>(url: string, init: { method: 'GET' | 'POST'; body?: object }): Promise<T> {
  const res = await request(url, {
    method: init.method,
    dispatcher: agent,
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
  return (await res.body.json()) as T;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = JSON.parse(await readBody(req)) as { model: string; messages: { role: string; content: string }[] };
  const question = body.messages.at(-1)?.content ?? '';
  const [web, vectors] = await Promise.all([
    callJson<SearxngAnswer>(`${searxngUrl}/search?${new URLSearchParams({ q: question, format: 'json', pageno: '1' })}`, { method: 'GET' }),
    callJson<EmbeddingsAnswer>(`${embeddingsUrl}/embeddings`, { method: 'POST', body: { model: 'text-embedding-3-small', input: [question] } }),
  ]);
  const webItems = (web.results ?? []).slice(0, 5).map((r, i) => ({ index: i + 1, url: r.url, title: r.title ?? r.url, snippet: r.content ?? '' }));
  // Stands in for the ranked Space chunks: one item per vector dimension group, so the check sees space results.
  const spaceItems = [{ index: webItems.length + 1, file_id: 'floor', snippet: `${vectors.data?.[0]?.embedding.length ?? 0} dimensions` }];
  const context = [...webItems, ...spaceItems].map((item) => `[${item.index}] ${item.snippet}`).join('\n');
  const model = await callJson<ModelAnswer>(`${modelUrl}/chat/completions`, {
    method: 'POST',
    body: { model: body.model, messages: [{ role: 'system', content: `Sources:\n${context}` }, ...body.messages] },
  });
  const out = {
    ...model,
    metadata: {
      search_results: { items: [...webItems, ...spaceItems] },
      extra: { plugins: [{ id: 'web-search', status: 'ok' }, { id: 'space-search', status: 'ok' }] },
    },
  };
  const text = JSON.stringify(out);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer((req, res) => {
  answer(req, res).catch((err: unknown) => {
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: String(err) } }));
  });
});
server.keepAliveTimeout = 30_000;
runChildEntry('floor server', async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ready: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
});
