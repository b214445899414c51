import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hasContent } from '../../tools/bench/load';
import { RawConnection, requestBytes } from '../../tools/bench/raw-http-client';

const SSE = ['data: {"choices":[{"delta":{"role":"assistant","content":""}}]}', 'data: {"choices":[{"delta":{"content":"Grüße"}}]}', 'data: [DONE]'];

/** Answers by path: JSON with a length, SSE in chunks a little apart, a 500, or a body that never ends. */
function server(): Promise<Server> {
  const s = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/json') {
        const body = JSON.stringify({ text: 'Grüße' });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      } else if (req.url === '/sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        SSE.forEach((event, i) => setTimeout(() => (i === SSE.length - 1 ? res.end(`${event}\n\n`) : res.write(`${event}\n\n`)), i * 5));
      } else if (req.url === '/fail') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
      } else res.writeHead(200, { 'content-length': '10' }).write('{');
    });
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

describe('raw HTTP load client', () => {
  let s: Server;
  let base: string;
  beforeAll(async () => {
    s = await server();
    base = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    s.closeAllConnections();
    s.close();
  });

  const connection = (path: string, options: { stream?: boolean; check?: (body: string) => string | null; timeoutMs?: number } = {}) => {
    const url = new URL(`${base}${path}`);
    return new RawConnection({
      url,
      bytes: requestBytes(url, { authorization: 'Bearer x' }, Buffer.from('{"a":1}')),
      stream: options.stream ?? false,
      check: options.check,
      timeoutMs: options.timeoutMs ?? 2000,
      hasContent,
    });
  };

  it('reads JSON answers of a known length, several on one connection, and hands the UTF-8 body to the check', async () => {
    const seen: string[] = [];
    const c = connection('/json', { check: (body) => (seen.push(body), null) });
    const samples = [await c.send(), await c.send(), await c.send()];
    c.close();
    expect(samples.map((sample) => sample.ok)).toEqual([true, true, true]);
    expect(seen[0]).toBe('{"text":"Grüße"}');
  });

  it('reads a chunked stream to its end and times the first content chunk', async () => {
    const c = connection('/sse', { stream: true });
    const [first, second] = [await c.send(), await c.send()];
    c.close();
    expect(first).toMatchObject({ ok: true });
    expect(second).toMatchObject({ ok: true });
    expect(first.ttftMs).toBeGreaterThan(3);
    expect(first.latencyMs).toBeGreaterThanOrEqual(first.ttftMs ?? 0);
  });

  it('fails an error status and a body that never ends, and reconnects after', async () => {
    const failed = connection('/fail');
    expect(await failed.send()).toMatchObject({ ok: false, error: expect.stringContaining('HTTP 500') });
    failed.close();
    const stuck = connection('/stuck', { timeoutMs: 100 });
    expect(await stuck.send()).toMatchObject({ ok: false, error: 'no answer within 100 ms' });
    expect(await stuck.send()).toMatchObject({ ok: false, error: 'no answer within 100 ms' });
    stuck.close();
  });
});
