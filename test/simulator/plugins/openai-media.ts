import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sendJson } from '../http';
import { applyFault, FaultScript } from './faults';

/**
 * A local OpenAI-compatible media backend: `POST /v1/images/generations` (JSON) and
 * `POST /v1/audio/transcriptions` (multipart/form-data, parsed for real with the Web `Request.formData()`),
 * in OpenAI's wire format, with the bearer key checked, every request recorded and a FaultScript per endpoint.
 * It refuses what OpenAI refuses: `response_format` sent to a GPT image model, `verbose_json` sent to a
 * gpt-4o transcription model.
 */

export const MEDIA_SIM_KEY = 'sim-media-key';

/** A 1x1 transparent PNG, as GPT image models answer (base64). */
export const SIM_PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

export interface MediaRequest {
  path: string;
  authorization: string | undefined;
  /** Images: the JSON body. */
  json?: Record<string, unknown>;
  /** Transcriptions: the text fields and the uploaded file. */
  fields?: Record<string, string>;
  file?: { name: string; type: string; bytes: Buffer };
}

export interface MediaSimulator {
  /** The base URL to configure (`IMAGES_BASE_URL`, `TRANSCRIBE_BASE_URL`), ending in `/v1`. */
  baseUrl: string;
  requests: MediaRequest[];
  images: FaultScript;
  transcriptions: FaultScript;
  /** Seconds of audio a transcription reports (per file). */
  durationSeconds: number;
  /** Files served at `{url}/files/{name}` (to stand for audio on the web). */
  serve(name: string, file: { contentType: string; bytes: Buffer }): string;
  url: string;
  reset(): void;
  close(): Promise<void>;
}

function openAiError(status: number, message = `Simulated HTTP ${status}.`, param: string | null = null) {
  const type = status === 401 ? 'invalid_request_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param, code: status === 401 ? 'invalid_api_key' : null } };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function imagesAnswer(body: Record<string, unknown>, state: 'ok' | 'empty') {
  const model = String(body.model ?? 'dall-e-2');
  const n = typeof body.n === 'number' ? body.n : 1;
  const created = Math.floor(Date.now() / 1000);
  if (state === 'empty') return { created, data: [] };
  const gptImage = model.startsWith('gpt-image');
  const asUrl = !gptImage && body.response_format !== 'b64_json';
  const data = Array.from({ length: n }, (_, i) => ({
    ...(asUrl ? { url: `https://images.example/generated/${created}-${i}.png` } : { b64_json: SIM_PNG_B64 }),
    ...(model === 'dall-e-3' ? { revised_prompt: `A detailed rendering of: ${String(body.prompt)}` } : {}),
  }));
  if (!gptImage) return { created, data };
  return {
    created,
    data,
    output_format: 'png',
    size: body.size === 'auto' ? '1024x1024' : body.size,
    usage: { input_tokens: 12, output_tokens: 272 * n, total_tokens: 12 + 272 * n, input_tokens_details: { text_tokens: 12, image_tokens: 0 } },
  };
}

function transcriptionAnswer(
  { fields, file, durationSeconds }: { fields: Record<string, string>; file: { name: string }; durationSeconds: number },
  state: 'ok' | 'empty',
) {
  const text = state === 'empty' ? '' : `Transcript of ${file.name}.`;
  const duration = state === 'empty' ? 0 : durationSeconds;
  if (fields.response_format === 'verbose_json') {
    return { task: 'transcribe', language: fields.language ?? 'english', duration, text, segments: [{ id: 0, start: 0, end: duration, text }] };
  }
  if ((fields.model ?? '').startsWith('gpt-4o')) return { text, usage: { type: 'tokens', input_tokens: 40, output_tokens: 10, total_tokens: 50 } };
  return { text, usage: { type: 'duration', seconds: Math.ceil(duration) } };
}

type Handler = (req: IncomingMessage, res: ServerResponse, recorded: MediaRequest) => Promise<void>;

function imagesHandler(script: FaultScript): Handler {
  return async (req, res, recorded) => {
    const body = JSON.parse((await readBody(req)).toString('utf8') || '{}') as Record<string, unknown>;
    recorded.json = body;
    const state = await applyFault(script.next(), res, { errorBody: (status) => openAiError(status), req });
    if (state === 'handled') return;
    if (typeof body.prompt !== 'string' || typeof body.model !== 'string')
      return sendJson(res, { status: 400, body: openAiError(400, 'prompt and model are required') });
    if (body.model.startsWith('gpt-image') && 'response_format' in body) {
      return sendJson(res, { status: 400, body: openAiError(400, "Unknown parameter: 'response_format'.", 'response_format') });
    }
    sendJson(res, { status: 200, body: imagesAnswer(body, state) });
  };
}

/** The multipart body's text fields and its `file` part, parsed by the Web platform's own form-data parser. */
async function readForm(req: IncomingMessage): Promise<{ fields: Record<string, string>; file?: MediaRequest['file'] }> {
  const raw = await readBody(req);
  const form = await new Request('http://sim/v1/audio/transcriptions', {
    method: 'POST',
    headers: { 'content-type': req.headers['content-type'] ?? '' },
    body: raw,
  }).formData();
  const fields: Record<string, string> = {};
  let file: MediaRequest['file'];
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') fields[name] = value;
    else if (name === 'file') file = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
  }
  return { fields, file };
}

function transcriptionsHandler(script: FaultScript, durationSeconds: () => number): Handler {
  return async (req, res, recorded) => {
    const { fields, file } = await readForm(req);
    Object.assign(recorded, { fields, file });
    const state = await applyFault(script.next(), res, { errorBody: (status) => openAiError(status), req });
    if (state === 'handled') return;
    if (!file || !fields.model) return sendJson(res, { status: 400, body: openAiError(400, 'file and model are required') });
    if (fields.model.startsWith('gpt-4o') && fields.response_format === 'verbose_json') {
      const message = `response_format 'verbose_json' is not compatible with model '${fields.model}'. Use 'json' or 'text' instead.`;
      return sendJson(res, { status: 400, body: openAiError(400, message, 'response_format') });
    }
    sendJson(res, { status: 200, body: transcriptionAnswer({ fields, file, durationSeconds: durationSeconds() }, state) });
  };
}

export async function startMediaSimulator(): Promise<MediaSimulator> {
  const requests: MediaRequest[] = [];
  const served = new Map<string, { contentType: string; bytes: Buffer }>();
  const sockets = new Set<Socket>();
  const images = new FaultScript();
  const transcriptions = new FaultScript();
  const sim = { durationSeconds: 12.5 };

  const routes: Record<string, Handler> = {
    '/v1/images/generations': imagesHandler(images),
    '/v1/audio/transcriptions': transcriptionsHandler(transcriptions, () => sim.durationSeconds),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://sim').pathname;
    const file = req.method === 'GET' ? served.get(path) : undefined;
    if (file) return void res.writeHead(200, { 'content-type': file.contentType, 'content-length': file.bytes.length }).end(file.bytes);
    const route = req.method === 'POST' ? routes[path] : undefined;
    if (!route) return void res.writeHead(404).end();
    const recorded: MediaRequest = { path, authorization: req.headers.authorization };
    requests.push(recorded);
    if (req.headers.authorization !== `Bearer ${MEDIA_SIM_KEY}`) return sendJson(res, { status: 401, body: openAiError(401, 'Incorrect API key provided.') });
    await route(req, res, recorded);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.socket?.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    images,
    transcriptions,
    get durationSeconds() {
      return sim.durationSeconds;
    },
    set durationSeconds(value: number) {
      sim.durationSeconds = value;
    },
    serve: (name, file) => {
      served.set(`/files/${name}`, file);
      return `${url}/files/${name}`;
    },
    reset: () => {
      requests.length = 0;
      images.reset();
      transcriptions.reset();
      served.clear();
      sim.durationSeconds = 12.5;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
