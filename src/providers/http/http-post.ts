import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';

/**
 * Kept-alive connections per upstream origin, through undici's `request` (as `net/backend-client.ts`):
 * 190–220 against 229–283 µs of the caller's CPU per streamed completion for `node:http` with a
 * keep-alive agent, in three runs of `tsx tools/bench/upstream-client.ts`; global `fetch` costs several times
 * more. It matters at thousands of completions a second.
 */
const KEEP_ALIVE = { keepAliveTimeout: 10_000, connections: 1024 } as const;
const sharedAgent = new Agent(KEEP_ALIVE);

/**
 * A tenant's endpoint connects through its binding's `lookup` (refusing internal addresses as the name
 * resolves): one agent per lookup, so its connections are kept alive too, and dropped with the binding.
 */
const guardedAgents = new WeakMap<LookupFunction, Agent>();

function agentFor(lookup: LookupFunction | undefined): Dispatcher {
  if (!lookup) return sharedAgent;
  let agent = guardedAgents.get(lookup);
  if (!agent) guardedAgents.set(lookup, (agent = new Agent({ ...KEEP_ALIVE, connect: { lookup } })));
  return agent;
}

/** The parts of an HTTP response the adapters use, in the shape of fetch's Response. */
export interface UpstreamHttpResponse {
  status: number;
  ok: boolean;
  headers: { get(name: string): string | null };
  /**
   * The body as it arrives (a paused stream: `read()` gives what is buffered); emits `error` if the
   * connection breaks off. Leaving it before its end does not close the connection: call `finish` then.
   */
  body: Readable;
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

function finish(message: Readable, how: 'drain' | 'destroy'): void {
  if (message.readableEnded || message.destroyed) return;
  // Nobody reads this body any more: its closing error (undici's 'Request aborted') is expected.
  message.on('error', () => undefined);
  if (how === 'destroy') {
    message.destroy();
    return;
  }
  const timer = setTimeout(() => message.destroy(), DRAIN_MS);
  message.once('end', () => clearTimeout(timer));
  message.once('close', () => clearTimeout(timer));
  message.resume();
}

/** Response headers read by name, as fetch's Headers: read only on failures (`retry-after`). */
class ResponseHeaders {
  constructor(private readonly raw: Dispatcher.ResponseData['headers']) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : (value ?? null);
  }
}

/** undici's response as the adapters read it: one object with its methods on the prototype, no closures per call. */
class UndiciResponse implements UpstreamHttpResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly body: Dispatcher.ResponseData['body'];
  private readonly rawHeaders: Dispatcher.ResponseData['headers'];

  constructor({ statusCode, headers, body }: Dispatcher.ResponseData) {
    this.status = statusCode;
    this.ok = statusCode >= 200 && statusCode < 300;
    this.body = body;
    this.rawHeaders = headers;
  }

  get headers(): ResponseHeaders {
    return new ResponseHeaders(this.rawHeaders);
  }

  finish(how: 'drain' | 'destroy'): void {
    finish(this.body, how);
  }

  text(): Promise<string> {
    return this.body.text();
  }

  json(): Promise<unknown> {
    return this.body.json();
  }
}

export interface HttpPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  /** Resolves the host instead of dns.lookup (a tenant's endpoint: refuses internal addresses). */
  lookup?: LookupFunction;
}

/**
 * POSTs and resolves once the response headers arrive; rejects on connection errors and on abort (and on
 * what undici throws at once, such as a URL it cannot parse). One promise: a `then`, not an `async` function.
 */
export function httpPost({ url, headers, body, signal, lookup }: HttpPost): Promise<UpstreamHttpResponse> {
  try {
    return request(url, { method: 'POST', dispatcher: agentFor(lookup), headers, body, signal }).then(toResponse);
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

const toResponse = (data: Dispatcher.ResponseData): UpstreamHttpResponse => new UndiciResponse(data);
