import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestServer {
  port: number;
  /** TCP connections accepted (a refused fetch must open none, not merely send no request). */
  connections: number;
  requests: number;
  close(): Promise<void>;
}

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** A server on loopback counting connections and requests; `handle` answers each request. */
export async function startServer(handle: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1'): Promise<TestServer> {
  const server = createServer();
  const state: TestServer = {
    port: 0,
    connections: 0,
    requests: 0,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', () => (state.connections += 1));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    state.requests += 1;
    handle(req, res);
  });
  state.port = await listen(server, host);
  return state;
}

/**
 * The canary: listens on every loopback address, IPv4 and IPv6 (`::` is dual-stack), so any fetch
 * that slips past the checks to 127.0.0.1, ::1 or ::ffff:127.0.0.1 on its port is counted.
 */
export function startCanary(): Promise<TestServer> {
  return startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('canary reached'), '::');
}

/**
 * The allowlisted server: `/ok` answers JSON, `/echo` the request, `/redirect?to=URL&status=302`
 * a redirect, `/loop` redirects to itself, `/big?bytes=N&chunked=1` a large body, `/hang` never
 * answers, `/status/N` that status.
 */
export function startAllowedServer(): Promise<TestServer> {
  return startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const parts = url.pathname.split('/');
    if (url.pathname === '/ok') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
    } else if (url.pathname === '/echo') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const echo = { method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(echo));
      });
    } else if (url.pathname === '/redirect') {
      res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/' }).end();
    } else if (url.pathname === '/loop') {
      res.writeHead(302, { location: '/loop' }).end();
    } else if (url.pathname === '/big') {
      const body = Buffer.alloc(Number(url.searchParams.get('bytes')), 'a');
      const headers = url.searchParams.has('chunked') ? {} : { 'content-length': String(body.length) };
      res.writeHead(200, { 'content-type': 'text/plain', ...headers });
      res.end(body);
    } else if (url.pathname === '/hang') {
      // Never answers: only the client's time limit ends the call.
    } else if (parts[1] === 'status') {
      res.writeHead(Number(parts[2]), { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'as asked' }));
    } else {
      res.writeHead(404).end();
    }
  });
}
