import { send, type Exchange } from './http-client';

/** Marks a request's text, so its upstream calls can be counted at the simulator and its log found. */
export const tagText = (tag: string) => `[rel:${tag}]`;
export const TAG_PATTERN = /\[rel:([^\]\s]+)\]/;

/** A completion request as the client saw it. */
export interface Completion extends Exchange {
  tag: string;
  stream: boolean;
  /** The API process it was sent to. */
  api: string;
  /** A complete HTTP answer: any status, or a stream that ended normally (even with an error event). */
  answered: boolean;
  /** 200 with a whole completion (JSON with choices, or a stream ending in `[DONE]` without an error event). */
  ok: boolean;
  /** `x-switchyard-log-id`: the request was accepted into the queue and must have exactly one log. */
  logId: string | null;
}

export interface CompletionOptions {
  stream?: boolean;
  /** Extra words after the tag (a longer answer, since the simulator echoes the message). */
  text?: string;
  timeoutMs: number;
  /** Fields merged into the body (e.g. `model`). */
  extra?: Record<string, unknown>;
  /** Characters of the answer read at most (64 KiB unless set): past it the answer cannot be checked whole. */
  maxBody?: number;
}

function isWhole(status: number | null, body: string, stream: boolean): boolean {
  if (status !== 200) return false;
  if (stream) return body.includes('data: [DONE]') && !/^data: \{"error"/m.test(body);
  try {
    return Array.isArray((JSON.parse(body) as { choices?: unknown }).choices);
  } catch {
    return false;
  }
}

/** The service's API processes, used in turn; `only` restricts to some of them (e.g. while one is down). */
export class ApiClient {
  private turn = 0;

  constructor(
    private readonly urls: () => string[],
    readonly apiKey: string,
  ) {}

  nextUrl(): string {
    const urls = this.urls();
    const url = urls[this.turn % urls.length];
    this.turn += 1;
    if (!url) throw new Error('no API process to send to');
    return url;
  }

  async complete(tag: string, options: CompletionOptions, url = this.nextUrl()): Promise<Completion> {
    const stream = options.stream ?? false;
    const body = {
      messages: [{ role: 'user', content: `${tagText(tag)} ${options.text ?? 'Say hello.'}` }],
      stream,
      custom_headers: { labels: { reliability: tag } },
      ...options.extra,
    };
    const exchange = await send({
      method: 'POST',
      url: `${url}/v1/chat/completions`,
      headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      timeoutMs: options.timeoutMs,
      ...(options.maxBody ? { maxBody: options.maxBody } : {}),
    });
    const logId = exchange.headers['x-switchyard-log-id'];
    return {
      ...exchange,
      tag,
      stream,
      api: url,
      answered: exchange.status !== null && exchange.complete,
      ok: exchange.complete && isWhole(exchange.status, exchange.body, stream),
      logId: typeof logId === 'string' ? logId : null,
    };
  }
}
