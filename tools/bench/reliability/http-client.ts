import { request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** What one HTTP exchange gave the client. */
export interface Exchange {
  /** Epoch ms the request was sent and the exchange ended. */
  sentAt: number;
  endedAt: number;
  latencyMs: number;
  /** Status line received (null: refused, reset or timed out before any answer). */
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  /** The body read (cut to `maxBody` characters). */
  body: string;
  /** The whole body arrived: the response ended normally, not by a broken connection or the client's timeout. */
  complete: boolean;
  error?: string;
}

export interface HttpCall {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The client's patience, in ms: past it the request is abandoned (the connection closed). */
  timeoutMs: number;
  maxBody?: number;
}

/**
 * One request with `node:http` on a connection of its own (no retries, no redirects): exactly what the wire
 * gave. No keep-alive, so a server closing an idle connection just as it is reused cannot pass for a fault.
 */
export function send(call: HttpCall): Promise<Exchange> {
  const url = new URL(call.url);
  const sentAt = Date.now();
  const started = performance.now();
  const maxBody = call.maxBody ?? 64 * 1024;
  return new Promise((resolve) => {
    let settled = false;
    let status: number | null = null;
    let headers: Exchange['headers'] = {};
    let body = '';
    const finish = (complete: boolean, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ sentAt, endedAt: Date.now(), latencyMs: performance.now() - started, status, headers, body, complete, ...(error ? { error } : {}) });
    };
    const payload = call.body === undefined ? undefined : Buffer.isBuffer(call.body) ? call.body : Buffer.from(call.body);
    const req = request(
      {
        agent: false,
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: call.method,
        headers: { ...call.headers, ...(payload ? { 'content-length': payload.length } : {}) },
      },
      (res) => {
        status = res.statusCode ?? null;
        headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          if (body.length < maxBody) body += text.slice(0, maxBody - body.length);
        });
        res.on('end', () => finish(res.complete));
        res.on('error', (err) => finish(false, err.message));
        res.on('close', () => finish(res.complete, res.complete ? undefined : 'connection closed mid-body'));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish(false, `no complete answer within ${call.timeoutMs} ms`);
    }, call.timeoutMs);
    req.on('error', (err) => finish(false, err.message));
    req.end(payload);
  });
}
