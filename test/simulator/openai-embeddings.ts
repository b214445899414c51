import type { ServerResponse } from 'node:http';
import { SimBadRequest } from './dialect';
import { sendJson } from './http';
import { simulatedEmbedding } from './plugins/embeddings';

/** OpenAI's embeddings route, under the OpenAI-compatible prefix. */
export const EMBEDDINGS_PATH = '/v1/embeddings';

/** Models that refuse `dimensions`, with OpenAI's message (text-embedding-ada-002) or Mistral's. */
const FIXED_LENGTH = /^(text-embedding-ada-002|mistral-embed)$/;
/** Vector lengths of the real models; any other model gives 1536. */
const DIMENSIONS: Record<string, number> = { 'text-embedding-3-large': 3072, 'mistral-embed': 1024 };
/** Mistral validates strictly: fields it does not know are refused. */
const STRICT = /^mistral-/;

export interface SimEmbeddingsRequest {
  model: string;
  /** Each input as text (token ids become words, so equal ids give equal vectors). */
  texts: string[];
  /** Tokens counted for usage: a quarter of a text's characters, or the number of token ids. */
  tokens: number;
  dimensions?: number;
  base64: boolean;
}

const isTokenIds = (value: unknown): value is number[] => Array.isArray(value) && value.length > 0 && value.every((x) => Number.isInteger(x));

/** Reads a request as OpenAI would, refusing what it refuses with 400. */
export function parseEmbeddingsRequest(raw: unknown): SimEmbeddingsRequest {
  const body = (raw ?? {}) as Record<string, unknown>;
  if (typeof body.model !== 'string') throw new SimBadRequest("'model' is required.");
  const input = body.input;
  const items: unknown[] = typeof input === 'string' || isTokenIds(input) ? [input] : Array.isArray(input) ? input : [];
  if (items.length === 0 || items.some((item) => !(typeof item === 'string' && item !== '') && !isTokenIds(item)))
    throw new SimBadRequest("'$.input' is invalid.");
  if (body.dimensions !== undefined && FIXED_LENGTH.test(body.model)) throw new SimBadRequest('This model does not support specifying dimensions.');
  if (body.user !== undefined && STRICT.test(body.model)) throw new SimBadRequest("Extra inputs are not permitted: 'user'.");
  const texts = items.map((item) => (typeof item === 'string' ? item : (item as number[]).map((id) => `token${id}`).join(' ')));
  const tokens = items.reduce<number>((sum, item) => sum + (typeof item === 'string' ? Math.max(1, Math.ceil(item.length / 4)) : (item as number[]).length), 0);
  return {
    model: body.model,
    texts,
    tokens,
    dimensions: typeof body.dimensions === 'number' ? body.dimensions : undefined,
    base64: body.encoding_format === 'base64',
  };
}

function unit(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  return vector.map((x) => x / norm);
}

function base64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

/** OpenAI's answer: deterministic unit vectors (the same text always gives the same one), as long as the model's unless `dimensions` says. */
export function sendEmbeddings(res: ServerResponse, request: SimEmbeddingsRequest, { cut }: { cut: boolean }): void {
  if (cut) {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4096 });
    res.write('{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,');
    res.socket?.destroy();
    return;
  }
  const data = request.texts.map((text, index) => {
    const vector = unit(simulatedEmbedding(text, request.dimensions ?? DIMENSIONS[request.model] ?? 1536));
    return { object: 'embedding', index, embedding: request.base64 ? base64(vector) : vector };
  });
  sendJson(res, { status: 200, body: { object: 'list', data, model: request.model, usage: { prompt_tokens: request.tokens, total_tokens: request.tokens } } });
}
