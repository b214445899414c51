import { Agent, request, type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { RawConnection, requestBytes, type Sample } from './raw-http-client';
import { distribution, type Distribution } from './stats';

/** One endpoint under load: the same body is sent again and again. */
export interface LoadTarget {
  url: string;
  headers: Record<string, string>;
  body: object;
  stream: boolean;
  /** Checks a 200 answer's whole body (JSON only): an error description fails the request, null passes it. */
  check?: (body: string) => string | null;
}

export interface LoadOptions {
  concurrency: number;
  /** The cell stops taking new requests after this long, in ms. */
  durationMs: number;
  /** ... or after this many requests, whichever comes first. */
  maxRequests: number;
  /** One request's limit, in ms; past it the request counts as an error. */
  timeoutMs: number;
  /**
   * `node` (the default): node:http clients with a keep-alive agent; `raw`: one bare socket per client,
   * the request's bytes built once and the answer parsed only as far as needed (raw-http-client.ts), a
   * lighter load generator, as autocannon is.
   */
  client?: LoadClient;
}

export type LoadClient = 'node' | 'raw';

export interface LoadResult {
  requests: number;
  errors: number;
  /** A few distinct error descriptions, for the report. */
  errorSamples: string[];
  wallMs: number;
  rps: number;
  latency: Distribution;
  /** Time to the first `data:` chunk with content (streams only). */
  ttft: Distribution | null;
  /** Completions finished in each whole second of the cell (to see that it was steady). */
  perSecond: number[];
}

/** Whether one SSE block is a `data:` event carrying content (text or a tool call). */
export function hasContent(block: string): boolean {
  if (!block.startsWith('data: ') || block.startsWith('data: [DONE]')) return false;
  try {
    const event = JSON.parse(block.slice(6)) as { choices?: { delta?: { content?: string | null; tool_calls?: unknown[] } }[] };
    const delta = event.choices?.[0]?.delta;
    return Boolean(delta?.content) || Boolean(delta?.tool_calls?.length);
  } catch {
    return false;
  }
}

/** Reads a response; for a stream, notes when the first content chunk arrived. */
function readResponse(res: IncomingMessage, { stream, check }: Pick<LoadTarget, 'stream' | 'check'>, started: number): Promise<Sample> {
  return new Promise((resolve) => {
    let ttftMs: number | undefined;
    let pending = '';
    let tail = '';
    // Kept whole only when it is checked: the plain benchmark reads nothing but the end.
    let whole = '';
    res.setEncoding('utf8');
    res.on('data', (text: string) => {
      tail = (tail + text).slice(-64);
      if (check) whole += text;
      if (!stream || ttftMs !== undefined) return;
      pending += text;
      let end = pending.indexOf('\n\n');
      while (end !== -1 && ttftMs === undefined) {
        if (hasContent(pending.slice(0, end))) ttftMs = performance.now() - started;
        pending = pending.slice(end + 2);
        end = pending.indexOf('\n\n');
      }
    });
    res.on('end', () => {
      const latencyMs = performance.now() - started;
      if (res.statusCode !== 200) return resolve({ ok: false, latencyMs, error: `HTTP ${res.statusCode}: ${tail.trim()}` });
      if (stream && (ttftMs === undefined || !tail.includes('data: [DONE]')))
        return resolve({ ok: false, latencyMs, error: `incomplete stream: ${tail.trim()}` });
      if (!stream && !tail.includes('}')) return resolve({ ok: false, latencyMs, error: 'empty body' });
      const problem = check && !stream ? check(whole) : null;
      if (problem) return resolve({ ok: false, latencyMs, error: problem });
      resolve({ ok: true, latencyMs, ttftMs });
    });
    res.on('error', (err) => resolve({ ok: false, latencyMs: performance.now() - started, error: err.message }));
  });
}

function send(target: LoadTarget, { agent, payload, timeoutMs }: { agent: Agent; payload: Buffer; timeoutMs: number }): Promise<Sample> {
  const url = new URL(target.url);
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { ...target.headers, 'content-type': 'application/json', 'content-length': payload.length },
      },
      (res) => {
        readResponse(res, target, started).then(resolve, () => resolve({ ok: false, latencyMs: performance.now() - started, error: 'read failed' }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => resolve({ ok: false, latencyMs: performance.now() - started, error: err.message }));
    req.end(payload);
  });
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What a closed loop recorded, before it is summarised: parts of one cell can be merged (mergeLoads). */
export interface LoadSamples {
  samples: Sample[];
  /** When each sample finished, in ms since the loop began. */
  finishedAt: number[];
  wallMs: number;
  stream: boolean;
}

/** Closed loop: `concurrency` clients, each sending its next request as soon as the previous one ends. */
export async function runLoad(target: LoadTarget, options: LoadOptions): Promise<LoadResult> {
  return summarise(await collectLoad(target, options));
}

/**
 * Several loops of one cell as if they were one (the halves of a cell measured A-B-B-A): their samples
 * together, their times end to end.
 */
export function mergeLoads(parts: LoadSamples[]): LoadResult {
  let offset = 0;
  let samples: Sample[] = [];
  let finishedAt: number[] = [];
  for (const part of parts) {
    samples = samples.concat(part.samples);
    finishedAt = finishedAt.concat(part.finishedAt.map((t) => t + offset));
    offset += part.wallMs;
  }
  return summarise({ samples, finishedAt, wallMs: offset, stream: parts[0]?.stream ?? false });
}

/** The closed loop of runLoad, its samples kept. */
export async function collectLoad(target: LoadTarget, options: LoadOptions): Promise<LoadSamples> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency, maxFreeSockets: options.concurrency });
  const payload = Buffer.from(JSON.stringify(target.body));
  const samples: Sample[] = [];
  const finishedAt: number[] = [];
  const begin = performance.now();
  const stopAt = begin + options.durationMs;
  let issued = 0;
  const url = new URL(target.url);
  const raw = { url, bytes: requestBytes(url, target.headers, payload), stream: target.stream, check: target.check, timeoutMs: options.timeoutMs, hasContent };
  const connections: RawConnection[] = [];
  const client = async () => {
    const connection = options.client === 'raw' ? new RawConnection(raw) : null;
    if (connection) connections.push(connection);
    while (performance.now() < stopAt && issued < options.maxRequests) {
      issued += 1;
      const sample = connection ? await connection.send() : await send(target, { agent, payload, timeoutMs: options.timeoutMs });
      samples.push(sample);
      finishedAt.push(performance.now() - begin);
      // A refused connection fails at once: do not spin.
      if (!sample.ok) await pause(5);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const wallMs = performance.now() - begin;
  agent.destroy();
  for (const connection of connections) connection.close();
  return { samples, finishedAt, wallMs, stream: target.stream };
}

function summarise({ samples, finishedAt, wallMs, stream }: LoadSamples): LoadResult {
  const ok = samples.filter((s) => s.ok);
  const errors = samples.filter((s) => !s.ok);
  const perSecond = new Array<number>(Math.floor(wallMs / 1000)).fill(0);
  finishedAt.forEach((t, i) => {
    const second = Math.floor(t / 1000);
    if (samples[i]?.ok && second < perSecond.length) perSecond[second] = (perSecond[second] ?? 0) + 1;
  });
  return {
    requests: ok.length,
    errors: errors.length,
    errorSamples: [...new Set(errors.map((e) => e.error ?? 'error'))].slice(0, 5),
    wallMs,
    rps: ok.length / (wallMs / 1000),
    latency: distribution(ok.map((s) => s.latencyMs)),
    ttft: stream ? distribution(ok.map((s) => s.ttftMs ?? Number.NaN)) : null,
    perSecond,
  };
}
