import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** One request's outcome, as the load generator records it. */
export interface Sample {
  ok: boolean;
  latencyMs: number;
  ttftMs?: number;
  error?: string;
}

/** What a connection sends again and again, and how it judges the answer. */
export interface RawRequest {
  url: URL;
  /** The whole request, head and body, built once. */
  bytes: Buffer;
  stream: boolean;
  check?: (body: string) => string | null;
  timeoutMs: number;
  /** Whether one SSE block is a `data:` event carrying content (the load generator's own rule). */
  hasContent: (block: string) => boolean;
}

/** The request's bytes: an HTTP/1.1 keep-alive POST with a JSON body. */
export function requestBytes(url: URL, headers: Record<string, string>, payload: Buffer): Buffer {
  const lines = [
    `POST ${url.pathname}${url.search} HTTP/1.1`,
    `host: ${url.host}`,
    'content-type: application/json',
    `content-length: ${payload.length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
}

/** Parses one response as it arrives: the status, then a body of known length or chunked. */
class ResponseReader {
  private head = '';
  private status = 0;
  private chunked = false;
  private remaining = -1;
  private chunkLeft = 0;
  private pendingSize = '';
  private sse = '';
  private tail = '';
  private whole = '';
  ttftMs: number | undefined;
  done = false;

  constructor(
    private readonly request: RawRequest,
    private readonly started: number,
  ) {}

  /** Feeds what the socket read (latin1: one character per byte); `done` once the response is whole. */
  feed(data: string): void {
    let text = data;
    if (this.status === 0) {
      this.head += text;
      const end = this.head.indexOf('\r\n\r\n');
      if (end === -1) return;
      this.readHead(this.head.slice(0, end));
      text = this.head.slice(end + 4);
    }
    if (this.chunked) this.readChunked(text);
    else this.readBody(text);
  }

  result(): Sample {
    const latencyMs = performance.now() - this.started;
    if (this.status !== 200) return { ok: false, latencyMs, error: `HTTP ${this.status}: ${this.tail.trim()}` };
    if (this.request.stream && (this.ttftMs === undefined || !this.tail.includes('data: [DONE]')))
      return { ok: false, latencyMs, error: `incomplete stream: ${this.tail.trim()}` };
    if (!this.request.stream && !this.tail.includes('}')) return { ok: false, latencyMs, error: 'empty body' };
    const problem = this.request.check && !this.request.stream ? this.request.check(Buffer.from(this.whole, 'latin1').toString('utf8')) : null;
    return problem ? { ok: false, latencyMs, error: problem } : { ok: true, latencyMs, ttftMs: this.ttftMs };
  }

  private readHead(head: string): void {
    this.status = Number(head.slice(9, 12));
    for (const line of head.split('\r\n').slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') this.remaining = Number(value);
      if (name === 'transfer-encoding' && value.toLowerCase().includes('chunked')) this.chunked = true;
    }
    if (!this.chunked && this.remaining <= 0) this.done = this.remaining === 0;
  }

  private readBody(text: string): void {
    this.content(text);
    // The socket reads latin1: one character per byte, as Content-Length counts.
    this.remaining -= text.length;
    if (this.remaining <= 0) this.done = true;
  }

  private readChunked(input: string): void {
    let text = input;
    while (text.length > 0 && !this.done) {
      if (this.chunkLeft > 0) {
        const part = text.slice(0, this.chunkLeft);
        this.content(part);
        this.chunkLeft -= part.length;
        text = text.slice(part.length);
        if (this.chunkLeft === 0) this.chunkLeft = -2; // the CRLF after the data
        continue;
      }
      if (this.chunkLeft < 0) {
        const skip = Math.min(-this.chunkLeft, text.length);
        text = text.slice(skip);
        this.chunkLeft += skip;
        continue;
      }
      this.pendingSize += text;
      const end = this.pendingSize.indexOf('\r\n');
      if (end === -1) return;
      const size = parseInt(this.pendingSize.slice(0, end), 16);
      text = this.pendingSize.slice(end + 2);
      this.pendingSize = '';
      if (size === 0) this.done = true;
      else this.chunkLeft = size;
    }
  }

  private content(text: string): void {
    this.tail = (this.tail + text).slice(-64);
    if (this.request.check) this.whole += text;
    if (!this.request.stream || this.ttftMs !== undefined) return;
    this.sse += text;
    let end = this.sse.indexOf('\n\n');
    while (end !== -1 && this.ttftMs === undefined) {
      if (this.request.hasContent(this.sse.slice(0, end))) this.ttftMs = performance.now() - this.started;
      this.sse = this.sse.slice(end + 2);
      end = this.sse.indexOf('\n\n');
    }
  }
}

/**
 * One keep-alive connection of a closed-loop client on a bare socket: the request's bytes are built
 * once, and the answer is parsed only as far as the benchmark needs (status, end, first content chunk),
 * so the load generator takes as little CPU from the machine under test as it can.
 */
export class RawConnection {
  private socket: Socket | null = null;

  constructor(private readonly request: RawRequest) {}

  send(): Promise<Sample> {
    const started = performance.now();
    const reader = new ResponseReader(this.request, started);
    return new Promise((resolve) => {
      const socket = this.socket && !this.socket.destroyed ? this.socket : this.open();
      let settled = false;
      const finish = (sample: Sample, keep: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('close', onClose);
        socket.off('error', onError);
        if (!keep) {
          socket.destroy();
          this.socket = null;
        }
        resolve(sample);
      };
      const onData = (data: string) => {
        reader.feed(data);
        if (reader.done) finish(reader.result(), true);
      };
      const onClose = () => finish({ ok: false, latencyMs: performance.now() - started, error: 'connection closed' }, false);
      const onError = (err: Error) => finish({ ok: false, latencyMs: performance.now() - started, error: err.message }, false);
      const timer = setTimeout(
        () => finish({ ok: false, latencyMs: performance.now() - started, error: `no answer within ${this.request.timeoutMs} ms` }, false),
        this.request.timeoutMs,
      );
      socket.on('data', onData);
      socket.once('close', onClose);
      socket.once('error', onError);
      socket.write(this.request.bytes);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private open(): Socket {
    const socket = connect({ host: this.request.url.hostname, port: Number(this.request.url.port) });
    socket.setNoDelay(true);
    socket.setEncoding('latin1');
    this.socket = socket;
    return socket;
  }
}
