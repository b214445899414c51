import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runChildEntry } from './child-entry';
import { callJson, withPluginContext } from './floor-plugins';
import { readBody } from './http-body';

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

interface ModelAnswer {
  id: string;
  choices: unknown[];
  usage?: unknown;
}

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = JSON.parse(await readBody(req)) as { model: string; messages: { role: string; content: string }[] };
  const { messages, metadata } = await withPluginContext(body.messages, { searxng: searxngUrl, embeddings: embeddingsUrl });
  const model = await callJson<ModelAnswer>(`${modelUrl}/chat/completions`, { method: 'POST', body: { model: body.model, messages } });
  const text = JSON.stringify({ ...model, metadata });
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
