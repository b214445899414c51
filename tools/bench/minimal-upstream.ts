import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The least an OpenAI-format server can do: read the body, answer a fixed completion (or a fixed
 * stream of word chunks). Used to check that the simulator is not itself the bottleneck of the baseline.
 */
const WORDS = ['Echo: ', 'Say ', 'hello ', 'to ', 'the ', 'benchmark.'];
const TEXT = WORDS.join('');
const USAGE = { prompt_tokens: 7, completion_tokens: WORDS.length, total_tokens: 7 + WORDS.length };

function chunk(model: string, fields: object): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-min', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, ...fields })}\n\n`;
}

function answer(res: ServerResponse, body: { model?: string; stream?: boolean; stream_options?: { include_usage?: boolean } }): void {
  const model = body.model ?? 'unknown';
  if (!body.stream) {
    const text = JSON.stringify({
      id: 'chatcmpl-min',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: TEXT, refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: USAGE,
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const usage = body.stream_options?.include_usage === true;
  const nullUsage = usage ? { usage: null } : {};
  res.write(chunk(model, { ...nullUsage, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }));
  for (const word of WORDS) res.write(chunk(model, { ...nullUsage, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] }));
  res.write(chunk(model, { ...nullUsage, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  if (usage) res.write(chunk(model, { choices: [], usage: USAGE }));
  res.end('data: [DONE]\n\n');
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      answer(res, JSON.parse(Buffer.concat(chunks).toString('utf8')) as Parameters<typeof answer>[1]);
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json","type":"invalid_request_error"}}');
    }
  });
}

/** Listens on a free loopback port; the OpenAI base URL is `<url>/openai/v1`, as with the simulator. */
export async function startMinimalUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(handle);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
