import { Agent, fetch, type RequestInit, type Response } from 'undici';
import { UpstreamError } from '../errors/upstream-error';
import { readLimited, statusError, toResponse, transportFailure } from './backend-client';
import { HostAllowlist } from './host-allowlist';
import type { HttpClient, HttpRequest, HttpResponse } from './http-client';
import { createSafeConnector, RefusedAddressError, systemResolver, type Resolver } from './safe-connector';
import { Deadline } from './deadline';

/**
 * Why undici: it is the engine behind Node's own fetch, kept by the Node project, CommonJS and
 * supported on Node 20 in its 7.x line, and its connector takes a `lookup`, so the address check
 * runs on the address the socket actually connects to (no check-then-connect gap for DNS
 * rebinding). `request-filtering-agent` does the same for http.Agent but is ESM-only since v3 and
 * would not carry FormData bodies; ipaddr.js supplies the address ranges (see address-policy.ts).
 */

export interface SafeClientOptions {
  /** `SSRF_ALLOWED_HOSTS`: `host` or `host:port` entries the fetcher may reach although internal. */
  allowedHosts: readonly string[];
  /** Largest body read when the call sets no `maxBytes`, in bytes (`FETCH_MAX_BYTES`). */
  maxBytes: number;
  /** Ceiling of every call's `timeoutMs`, in ms (`FETCH_TIMEOUT_MS`). */
  timeoutMs: number;
  /** How host names become addresses; the system resolver unless a test gives a fixed table. */
  resolve?: Resolver;
}

/** Redirects followed at most; each one is checked like the first URL. */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers not carried to another origin on a redirect (as browsers' fetch does for Authorization). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

const ALLOWLIST_HINT = 'only public addresses may be fetched (an operator can allow a named internal host with SSRF_ALLOWED_HOSTS)';

function refused(service: string, message: string): UpstreamError {
  return new UpstreamError({ kind: 'permission', provider: service, message: `${service}: refused to fetch ${message}; ${ALLOWLIST_HINT}` });
}

/** Parses a URL the service is asked to fetch: http and https only. */
function checkedUrl(text: string, { base, service }: { base?: URL; service: string }): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new UpstreamError({ kind: 'bad_request', provider: service, message: `${service}: not a valid URL` });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UpstreamError({
      kind: 'permission',
      provider: service,
      message: `${service}: refused to fetch a ${url.protocol} URL; only http and https are fetched`,
    });
  }
  return url;
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())));
}

/** The error behind undici's "fetch failed", when it was our refusal of an address. */
function findRefusal(err: unknown): RefusedAddressError | undefined {
  for (let current: unknown = err, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (current instanceof RefusedAddressError) return current;
  }
  return undefined;
}

interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: HttpRequest['body'];
}

/** The next request after a redirect, as browsers do it: 303 (and 301/302 after POST) become a GET without body. */
function nextHop(hop: Hop, { status, location, service }: { status: number; location: string; service: string }): Hop {
  const url = checkedUrl(location, { base: hop.url, service });
  const headers = url.origin === hop.url.origin ? hop.headers : withoutCredentials(hop.headers);
  const becomesGet = status === 303 || ((status === 301 || status === 302) && hop.method === 'POST');
  if (!becomesGet) return { url, method: hop.method, headers, body: hop.body };
  const getHeaders = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-type'));
  return { url, method: 'GET', headers: getHeaders, body: undefined };
}

/** Follows redirects by hand so that every hop goes through the checking connector again. */
async function followRedirects(
  request: HttpRequest,
  { dispatcher, signal }: { dispatcher: Agent; signal: AbortSignal },
): Promise<{ response: Response; url: URL }> {
  const { service } = request;
  let hop: Hop = { url: checkedUrl(request.url, { service }), method: request.method ?? 'GET', headers: { ...request.headers }, body: request.body };
  for (let redirects = 0; ; redirects += 1) {
    // The global FormData and undici's are the same class at run time; only their declared types differ.
    const body = hop.body as RequestInit['body'];
    const response = await fetch(hop.url, { method: hop.method, headers: hop.headers, body, signal, dispatcher, redirect: 'manual' });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return { response, url: hop.url };
    await response.body?.cancel().catch(() => undefined);
    if (redirects >= MAX_REDIRECTS) {
      throw new UpstreamError({
        kind: 'invalid_response',
        provider: service,
        message: `${service}: more than ${MAX_REDIRECTS} redirects`,
        status: response.status,
      });
    }
    hop = nextHop(hop, { status: response.status, location, service });
  }
}

/**
 * The one fetcher for URLs that come from outside (a request, a file, a search result, a Space's
 * settings). Refuses internal addresses (see address-policy.ts) unless allowlisted, re-checks every
 * redirect, reads at most `maxBytes` and ends the whole call (redirects and body) at its time limit.
 * Fails with UpstreamError: `permission` for a refused address or scheme, `timeout`, `aborted`,
 * `invalid_response` for a body too large, the upstream status's kind unless `acceptErrorStatus`.
 */
export function createSafeClient(options: SafeClientOptions): HttpClient {
  const connect = createSafeConnector({ allowlist: new HostAllowlist(options.allowedHosts), resolve: options.resolve ?? systemResolver });
  const dispatcher = new Agent({ connect });
  return async (request: HttpRequest): Promise<HttpResponse> => {
    const { service } = request;
    const limit = new Deadline(request.signal, { callMs: Math.min(request.timeoutMs, options.timeoutMs) });
    try {
      const { response, url } = await followRedirects(request, { dispatcher, signal: limit.signal });
      const body = await readLimited(response, { maxBytes: request.maxBytes ?? options.maxBytes, service });
      const result = toResponse(response.status, { url: url.href, headers: response.headers, body }, service);
      if ((response.status < 200 || response.status >= 300) && !request.acceptErrorStatus) throw statusError(result, service);
      return result;
    } catch (err) {
      const refusal = findRefusal(err);
      if (refusal) throw refused(service, refusal.message);
      throw transportFailure(err, { service, timedOut: limit.timedOut, aborted: request.signal.aborted });
    } finally {
      limit.clear();
    }
  };
}
