import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

/**
 * Kept-alive connections per upstream host. `node:http` costs a fraction of global `fetch`'s CPU per
 * call (measured by `npm run bench`), which matters at thousands of completions a second.
 */
const httpAgent = new HttpAgent({ keepAlive: true, keepAliveMsecs: 10_000, maxSockets: 1024 });
const httpsAgent = new HttpsAgent({ keepAlive: true, keepAliveMsecs: 10_000, maxSockets: 1024 });

/** The parts of an HTTP response the adapters use, in the shape of fetch's Response. */
export interface UpstreamHttpResponse {
  status: number;
  ok: boolean;
  headers: { get(name: string): string | null };
  /**
   * The body as it arrives; breaks off with an error if the connection does. Leaving the loop early
   * does not close the connection: call `finish` then.
   */
  body: AsyncIterable<Uint8Array>;
  /**
   * For a body left unread: `drain` reads the rest in the background so the kept-alive connection
   * serves the next call (it is closed if the rest does not come within a second); `destroy` closes it.
   */
  finish(how: 'drain' | 'destroy'): void;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** How long a body left unread may take to end before its connection is closed instead of reused, in ms. */
const DRAIN_MS = 1000;

function finish(message: IncomingMessage, how: 'drain' | 'destroy'): void {
  if (message.complete || message.destroyed) return;
  if (how === 'destroy') {
    message.destroy();
    return;
  }
  const timer = setTimeout(() => message.destroy(), DRAIN_MS);
  message.once('end', () => clearTimeout(timer));
  message.once('close', () => clearTimeout(timer));
  message.resume();
}

async function readAll(message: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function wrap(message: IncomingMessage): UpstreamHttpResponse {
  const status = message.statusCode ?? 0;
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: {
      get: (name) => {
        const value = message.headers[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : (value ?? null);
      },
    },
    // An SSE reader stops at its terminal event, usually just before the body ends: closing the
    // connection there (what a plain `for await` does) would cost a new connection per call.
    body: { [Symbol.asyncIterator]: () => message.iterator({ destroyOnReturn: false }) },
    finish: (how) => finish(message, how),
    text: () => readAll(message),
    json: async () => JSON.parse(await readAll(message)) as unknown,
  };
}

export interface HttpPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  /** Resolves the host instead of dns.lookup (a tenant's endpoint: refuses internal addresses). */
  lookup?: LookupFunction;
}

/** POSTs and resolves once the response headers arrive; rejects on connection errors and on abort. */
export function httpPost({ url, headers, body, signal, lookup }: HttpPost): Promise<UpstreamHttpResponse> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(target, {
      method: 'POST',
      agent: secure ? httpsAgent : httpAgent,
      headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      signal,
      ...(lookup ? { lookup } : {}),
    });
    req.on('response', (message) => resolve(wrap(message)));
    req.on('error', reject);
    req.end(body);
  });
}
