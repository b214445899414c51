import type { LookupAddress } from 'node:dns';
import { UpstreamError } from '../../../src/errors/upstream-error';
import type { HttpClient, HttpRequest } from '../../../src/net/http-client';
import { createSafeClient, MAX_REDIRECTS } from '../../../src/net/safe-fetch';
import { systemResolver, type Resolver } from '../../../src/net/safe-connector';
import { startAllowedServer, startCanary, type TestServer } from './net-servers';

/** Test names resolved without DNS: each points at loopback, as an attacker's DNS record would. */
const FIXED_NAMES: Record<string, LookupAddress[]> = {
  'loopback.test': [{ address: '127.0.0.1', family: 4 }],
  'v6-loopback.test': [{ address: '::1', family: 6 }],
  'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'simulator.test': [{ address: '127.0.0.1', family: 4 }],
};
const resolve: Resolver = (hostname) => (FIXED_NAMES[hostname] ? Promise.resolve(FIXED_NAMES[hostname]) : systemResolver(hostname));

let canary: TestServer;
let allowed: TestServer;
let other: TestServer;
let client: HttpClient;

beforeAll(async () => {
  [canary, allowed, other] = await Promise.all([startCanary(), startAllowedServer(), startAllowedServer()]);
  client = createSafeClient({
    allowedHosts: [`127.0.0.1:${allowed.port}`, `127.0.0.1:${other.port}`, `simulator.test:${allowed.port}`],
    maxBytes: 1024 * 1024,
    timeoutMs: 5000,
    resolve,
  });
});

afterAll(async () => {
  await Promise.all([canary, allowed, other].map((server) => server.close()));
});

afterEach(() => {
  // Whatever a test did, nothing may have reached the canary, not even a TCP connection.
  expect({ connections: canary.connections, requests: canary.requests }).toEqual({ connections: 0, requests: 0 });
});

function call(url: string, extra: Partial<HttpRequest> = {}) {
  return client({ url, signal: new AbortController().signal, timeoutMs: 5000, service: 'page', ...extra });
}

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const err = await promise.then(
    () => new Error('the fetch succeeded'),
    (caught: unknown) => caught,
  );
  if (!(err instanceof UpstreamError)) throw err;
  return err;
}

const allowedUrl = (path: string) => `http://127.0.0.1:${allowed.port}${path}`;

describe('the SSRF-safe client refuses internal addresses before connecting', () => {
  const targets: [string, (port: number) => string][] = [
    ['IPv4 loopback', (port) => `http://127.0.0.1:${port}/`],
    ['another 127/8 address', (port) => `http://127.0.0.2:${port}/`],
    ['localhost', (port) => `http://localhost:${port}/`],
    ['IPv6 loopback', (port) => `http://[::1]:${port}/`],
    ['IPv4-mapped IPv6', (port) => `http://[::ffff:127.0.0.1]:${port}/`],
    ['decimal IPv4', (port) => `http://2130706433:${port}/`],
    ['hex IPv4', (port) => `http://0x7f000001:${port}/`],
    ['octal IPv4', (port) => `http://0177.0.0.1:${port}/`],
    ['short IPv4', (port) => `http://127.1:${port}/`],
    ['unspecified address', (port) => `http://0.0.0.0:${port}/`],
    ['a name resolving to loopback', (port) => `http://loopback.test:${port}/`],
    ['a name resolving to IPv6 loopback', (port) => `http://v6-loopback.test:${port}/`],
    ['a name resolving to a mapped loopback', (port) => `http://mapped.test:${port}/`],
    ['https to loopback', (port) => `https://127.0.0.1:${port}/`],
  ];

  it.each(targets)('%s', async (_name, target) => {
    const err = await failure(call(target(canary.port)));
    expect(err.kind).toBe('permission');
    expect(err.status).toBeUndefined();
    expect(err.provider).toBe('page');
    expect(err.message).toMatch(/refused to fetch .*SSRF_ALLOWED_HOSTS/);
  });

  it('names the address and why in the message', async () => {
    const err = await failure(call(`http://loopback.test:${canary.port}/`));
    expect(err.message).toContain('loopback.test (127.0.0.1) is a loopback address');
  });

  it.each(['file:///etc/passwd', 'ftp://127.0.0.1/', 'gopher://127.0.0.1:70/'])('refuses the scheme of %s', async (url) => {
    const err = await failure(call(url));
    expect(err.kind).toBe('permission');
  });

  it('answers bad_request for a string that is not a URL', async () => {
    expect((await failure(call('not a url'))).kind).toBe('bad_request');
  });
});

describe('each redirect is checked again', () => {
  const redirects: [string, (port: number) => string][] = [
    ['to the loopback address', (port) => `http://127.0.0.1:${port}/`],
    ['to localhost', (port) => `http://localhost:${port}/`],
    ['to a name resolving to loopback', (port) => `http://loopback.test:${port}/`],
    ['to IPv6 loopback', (port) => `http://[::1]:${port}/`],
    ['to a decimal address', (port) => `http://2130706433:${port}/`],
  ];

  it.each(redirects)('from an allowlisted server %s', async (_name, target) => {
    for (const status of [301, 302, 303, 307, 308]) {
      const url = allowedUrl(`/redirect?status=${status}&to=${encodeURIComponent(target(canary.port))}`);
      const err = await failure(call(url));
      expect(err.kind).toBe('permission');
    }
  });

  it('refuses a redirect to another scheme', async () => {
    const err = await failure(call(allowedUrl(`/redirect?to=${encodeURIComponent('file:///etc/passwd')}`)));
    expect(err.kind).toBe('permission');
  });

  it(`follows at most ${MAX_REDIRECTS} redirects`, async () => {
    const before = allowed.requests;
    const err = await failure(call(allowedUrl('/loop')));
    expect(err.kind).toBe('invalid_response');
    expect(allowed.requests - before).toBe(MAX_REDIRECTS + 1);
  });
});

describe('allowlisted hosts', () => {
  it('fetches from an allowlisted host and port', async () => {
    const response = await call(allowedUrl('/ok'));
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    expect(response.url).toBe(allowedUrl('/ok'));
  });

  it('fetches an allowlisted name, resolved', async () => {
    const response = await call(`http://simulator.test:${allowed.port}/ok`);
    expect(response.json()).toEqual({ ok: true });
  });

  it('follows a redirect between allowlisted hosts and reports the final URL', async () => {
    const target = `http://127.0.0.1:${other.port}/ok`;
    const response = await call(allowedUrl(`/redirect?to=${encodeURIComponent(target)}`));
    expect(response.url).toBe(target);
    expect(response.json()).toEqual({ ok: true });
  });

  it('sends the method, headers and body, and drops credentials on a redirect to another origin', async () => {
    const direct = await call(allowedUrl('/echo'), {
      method: 'POST',
      body: '{"q":1}',
      headers: { authorization: 'Bearer x', 'content-type': 'application/json' },
    });
    expect(direct.json()).toMatchObject({ method: 'POST', body: '{"q":1}', headers: { authorization: 'Bearer x' } });
    const target = `http://127.0.0.1:${other.port}/echo`;
    const moved = await call(allowedUrl(`/redirect?status=307&to=${encodeURIComponent(target)}`), {
      method: 'POST',
      body: 'kept',
      headers: { authorization: 'Bearer x' },
    });
    const echoed = moved.json() as { method: string; body: string; headers: Record<string, string> };
    expect(echoed).toMatchObject({ method: 'POST', body: 'kept' });
    expect(echoed.headers.authorization).toBeUndefined();
  });

  it('turns a POST into a GET on 303', async () => {
    const response = await call(allowedUrl(`/redirect?status=303&to=${encodeURIComponent('/echo')}`), { method: 'POST', body: 'dropped' });
    expect(response.json()).toMatchObject({ method: 'GET', body: '' });
  });

  it('does not open the other ports of an allowlisted address', async () => {
    expect((await failure(call(`http://127.0.0.1:${canary.port}/`))).kind).toBe('permission');
  });
});

describe('limits and upstream failures', () => {
  it('refuses a body larger than maxBytes, declared or chunked', async () => {
    const declared = await failure(call(allowedUrl('/big?bytes=4096'), { maxBytes: 1024 }));
    expect(declared.kind).toBe('invalid_response');
    const chunked = await failure(call(allowedUrl('/big?bytes=4096&chunked=1'), { maxBytes: 1024 }));
    expect(chunked.kind).toBe('invalid_response');
  });

  it('uses the configured maxBytes when the call sets none', async () => {
    const err = await failure(call(allowedUrl(`/big?bytes=${2 * 1024 * 1024}&chunked=1`)));
    expect(err.kind).toBe('invalid_response');
    expect((await call(allowedUrl('/big?bytes=1000'))).body.length).toBe(1000);
  });

  it('ends a call that does not answer in time', async () => {
    expect((await failure(call(allowedUrl('/hang'), { timeoutMs: 200 }))).kind).toBe('timeout');
  });

  it('holds every call to the configured time limit, whatever the call asks', async () => {
    const strict = createSafeClient({ allowedHosts: [`127.0.0.1:${allowed.port}`], maxBytes: 1024, timeoutMs: 200 });
    const err = await failure(strict({ url: allowedUrl('/hang'), signal: new AbortController().signal, timeoutMs: 60_000, service: 'page' }));
    expect(err.kind).toBe('timeout');
  });

  it('reports the caller abort as aborted', async () => {
    const controller = new AbortController();
    const pending = call(allowedUrl('/hang'), { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await failure(pending)).kind).toBe('aborted');
  });

  it('maps an upstream status to its kind, or returns it when asked', async () => {
    const err = await failure(call(allowedUrl('/status/404')));
    expect(err).toMatchObject({ kind: 'not_found', status: 404 });
    expect((await failure(call(allowedUrl('/status/503')))).kind).toBe('server_error');
    const accepted = await call(allowedUrl('/status/404'), { acceptErrorStatus: true });
    expect(accepted.status).toBe(404);
  });
});
