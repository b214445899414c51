import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { answerFor, usageFor } from './answer';
import { anthropicDialect } from './anthropic';
import { BehaviourScript, type Behaviour, type FirstCallFault } from './behaviour';
import { SimBadRequest, type AnswerOptions, type Dialect } from './dialect';
import { readJsonBody, sleep } from './http';
import { geminiDialect } from './gemini';
import { openAiDialect } from './openai';
import { parseEmbeddingsRequest, sendEmbeddings } from './openai-embeddings';

/** A key every simulated provider refuses with 401. */
export const SIM_BAD_KEY = 'sim-bad-key';

export interface RecordedRequest {
  dialect: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** Epoch ms when the request's body had arrived. */
  receivedAt: number;
  /** Epoch ms when the exchange ended: answered, or the connection closed (a client that gave up). */
  closedAt?: number;
  /** Set when the exchange ended: whether the whole answer was handed to the client (false: the connection broke first). */
  completed?: boolean;
}

export interface Simulator {
  url: string;
  /** Base URLs to configure as `<PROVIDER>_BASE_URL`. */
  baseUrls: { openai: string; anthropic: string; gemini: string };
  requests: RecordedRequest[];
  /** Behaviours for the next requests naming this model, in order. */
  script(model: string, behaviours: Behaviour[]): void;
  /** Shows the fault on the first call of each request the pattern tells apart, whichever model it names (until `reset`). */
  failFirstCalls(fault: FirstCallFault): void;
  reset(): void;
  close(): Promise<void>;
}

export interface SimulatorOptions {
  dialects?: Dialect[];
  /** Keep a copy of each request (off for benchmarks). */
  record?: boolean;
  /**
   * Strings of a recorded body longer than this are kept cut to it: a long-running suite sending 900 KiB
   * prompts would otherwise hold them all, and collect that garbage while it measures latency.
   */
  recordedStringChars?: number;
  /** Wait before every answer that sets no delay of its own, in ms (a model's latency, for benchmarks). */
  defaultDelayMs?: number;
}

function statusMessage(status: number): string {
  const messages: Record<number, string> = {
    400: 'Simulated bad request.',
    401: 'Simulated invalid API key.',
    403: 'Simulated permission denied.',
    404: 'Simulated unknown model.',
    429: 'Simulated rate limit.',
    500: 'Simulated server error.',
    503: 'Simulated overload.',
  };
  return messages[status] ?? `Simulated HTTP ${status}.`;
}

async function perform(
  behaviour: Behaviour,
  { res, send, dialect }: { res: ServerResponse; send: (options?: AnswerOptions) => Promise<void>; dialect: Dialect },
): Promise<void> {
  switch (behaviour.kind) {
    case 'hang':
      await new Promise<void>((resolve) => res.on('close', () => resolve()));
      return;
    case 'reset':
      res.socket?.destroy();
      return;
    case 'status':
      dialect.sendError(res, { status: behaviour.status, message: statusMessage(behaviour.status), retryAfterSeconds: behaviour.retryAfterSeconds });
      return;
    case 'cut':
      await send({ cutAfter: behaviour.afterChunks });
      return;
    case 'ok':
      if (behaviour.delayMs) await sleep(behaviour.delayMs);
      await send({ chunkDelayMs: behaviour.chunkDelayMs });
  }
}

/** A local HTTP server that speaks OpenAI's, Anthropic's and Gemini's wire formats, with faults on demand. */
/** A copy of a JSON value with every string longer than `chars` cut to it. */
function cutStrings(value: unknown, chars: number): unknown {
  if (typeof value === 'string') return value.length > chars ? value.slice(0, chars) : value;
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, chars));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutStrings(item, chars)]));
  return value;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const dialects = options.dialects ?? defaultDialects();
  const script = new BehaviourScript();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const dialect = dialects.find((d) => url.pathname.startsWith(`${d.prefix}/`));
    const route = dialect?.match(req.method ?? 'GET', url.pathname.slice(dialect.prefix.length));
    if (!dialect || !route) {
      res.writeHead(404).end();
      return;
    }
    const body = await readJsonBody(req).catch(() => undefined);
    if (options.record !== false) {
      const kept = options.recordedStringChars === undefined ? body : cutStrings(body, options.recordedStringChars);
      const recorded: RecordedRequest = { dialect: dialect.prefix, path: url.pathname + url.search, headers: req.headers, body: kept, receivedAt: Date.now() };
      requests.push(recorded);
      res.on('close', () => {
        recorded.closedAt = Date.now();
        recorded.completed = res.writableFinished;
      });
    }
    const key = dialect.apiKey(req);
    if (!key || key === SIM_BAD_KEY) return dialect.sendError(res, { status: 401, message: statusMessage(401) });
    try {
      if (route.embeddings) {
        const embeddings = parseEmbeddingsRequest(body);
        const send = async (answerOptions: AnswerOptions = {}) => sendEmbeddings(res, embeddings, { cut: answerOptions.cutAfter !== undefined });
        return await perform(script.next(embeddings.model, body), { res, send, dialect });
      }
      const conversation = dialect.parse(body, route);
      const answer = answerFor(conversation);
      const usage = usageFor(conversation, answer);
      const send = (answerOptions: AnswerOptions = {}) => dialect.sendAnswer(res, { conversation, answer, usage }, answerOptions);
      const behaviour = script.next(conversation.model, body);
      const delayed =
        behaviour.kind === 'ok' && behaviour.delayMs === undefined && options.defaultDelayMs ? { ...behaviour, delayMs: options.defaultDelayMs } : behaviour;
      await perform(delayed, { res, send, dialect });
    } catch (err) {
      if (!(err instanceof SimBadRequest)) throw err;
      dialect.sendError(res, { status: 400, message: err.message });
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.socket?.destroy());
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseUrls: { openai: `${url}/openai/v1`, anthropic: `${url}/anthropic`, gemini: `${url}/gemini` },
    requests,
    script: (model, behaviours) => script.push(model, behaviours),
    failFirstCalls: (fault) => script.failFirstCalls(fault),
    reset: () => {
      script.clear();
      requests.length = 0;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function defaultDialects(): Dialect[] {
  return [openAiDialect, geminiDialect, anthropicDialect];
}
