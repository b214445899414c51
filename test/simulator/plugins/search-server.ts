import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sendJson } from '../http';
import { applyFault, FaultScript } from './faults';

/** The key every simulated search backend accepts unless told otherwise. */
export const SIM_SEARCH_KEY = 'sim-search-key';

export interface RecordedSearchRequest {
  method: string;
  path: string;
  /** The URL's query parameters. */
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or null for a GET. */
  body: unknown;
}

/** One result the simulated backend found; each dialect writes it in its own wire format. */
export interface SimResult {
  title: string;
  url: string;
  snippet: string;
  score: number;
  publishedAt: string;
}

export interface SearchSimulator {
  url: string;
  requests: RecordedSearchRequest[];
  faults: FaultScript;
  close(): Promise<void>;
}

export interface SearchSimulatorOptions {
  /** The key the backend accepts (default SIM_SEARCH_KEY). */
  apiKey?: string;
  /** The URLs results point to, in order (default `https://example.org/result-<n>`); fewer URLs, fewer results. */
  resultUrls?: string[];
}

/** What makes one backend's wire format: where it listens, how it authenticates, how it writes results and errors. */
export interface SearchDialect {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** Null when the request may be served, else the status and body the real backend refuses it with. */
  refuse(request: RecordedSearchRequest, apiKey: string): { status: number; body: unknown; contentType?: string } | null;
  /** The query and how many results the request asks for (the backend's default when it does not say). */
  ask(request: RecordedSearchRequest): { query: string; count: number };
  /** The answer body; `results` is empty for the `empty` fault. */
  answer(results: SimResult[], query: string): unknown;
  errorBody(status: number): unknown;
}

/** Results made from the query, so a test can see that the query arrived. */
export function simResults(query: string, { count, urls }: { count: number; urls?: string[] }): SimResult[] {
  const targets = urls ?? Array.from({ length: count }, (_, i) => `https://example.org/result-${i + 1}`);
  return targets.slice(0, count).map((url, i) => ({
    title: `Result ${i + 1} about ${query}`,
    url,
    snippet: `Snippet ${i + 1}: what the web says about ${query}.`,
    score: Number((1 - i * 0.05).toFixed(2)),
    publishedAt: `2026-11-${String(20 - i).padStart(2, '0')}T08:00:00Z`,
  }));
}

async function readRequest(req: IncomingMessage): Promise<RecordedSearchRequest> {
  const url = new URL(req.url ?? '/', 'http://sim');
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return { method: req.method ?? 'GET', path: url.pathname, params: Object.fromEntries(url.searchParams), headers: req.headers, body: parseBody(text) };
}

function parseBody(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function serve(
  dialect: SearchDialect,
  { req, res, sim, options }: { req: IncomingMessage; res: ServerResponse; sim: SearchSimulator; options: SearchSimulatorOptions },
): Promise<void> {
  const request = await readRequest(req);
  sim.requests.push(request);
  if (request.method !== dialect.method || request.path !== dialect.path) {
    sendJson(res, { status: 404, body: dialect.errorBody(404) });
    return;
  }
  const refusal = dialect.refuse(request, options.apiKey ?? SIM_SEARCH_KEY);
  if (refusal) {
    const text = typeof refusal.body === 'string' ? refusal.body : JSON.stringify(refusal.body);
    res.writeHead(refusal.status, { 'content-type': refusal.contentType ?? 'application/json' }).end(text);
    return;
  }
  const outcome = await applyFault(sim.faults.next(), res, { errorBody: (status) => dialect.errorBody(status), req });
  if (outcome === 'handled') return;
  const { query, count } = dialect.ask(request);
  const results = outcome === 'empty' ? [] : simResults(query, { count, urls: options.resultUrls });
  sendJson(res, { status: 200, body: dialect.answer(results, query) });
}

/** Starts a simulated search backend on loopback speaking `dialect`. */
export async function startSearchSimulator(dialect: SearchDialect, options: SearchSimulatorOptions = {}): Promise<SearchSimulator> {
  const sockets = new Set<Socket>();
  const server = createServer();
  const sim: SearchSimulator = { url: '', requests: [], faults: new FaultScript(), close: async () => undefined };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    serve(dialect, { req, res, sim, options }).catch(() => res.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sim.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sim.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return sim;
}
