import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readJsonBody, sendJson } from '../http';
import { applyFault, FaultScript } from './faults';

/** Dimensions of the simulated vectors unless the request asks for `dimensions`: enough that words rarely share one. */
export const SIMULATED_DIMENSIONS = 512;

/**
 * Words the simulated model takes for one meaning, so that vector search finds what full text cannot
 * (a passage about a "car" for a question about an "automobile"). Everything else is a bag of words.
 */
const MEANINGS: readonly (readonly string[])[] = [
  ['car', 'cars', 'automobile', 'automobiles', 'vehicle', 'vehicles'],
  ['doctor', 'doctors', 'physician', 'physicians'],
  ['holiday', 'holidays', 'vacation', 'vacations', 'leave'],
];

function meaningOf(word: string): string {
  const group = MEANINGS.find((words) => words.includes(word));
  return group ? `meaning:${group[0]}` : word;
}

/** A deterministic vector from text: each word (or its meaning) adds ±1 to a dimension chosen by its hash. */
export function simulatedEmbedding(text: string, dimensions = SIMULATED_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  for (const word of words.filter((w) => w.length > 2)) {
    const digest = createHash('sha256').update(meaningOf(word)).digest();
    const at = digest.readUInt32BE(0) % dimensions;
    vector[at] = (vector[at] ?? 0) + (digest.readUInt8(4) % 2 === 0 ? 1 : -1);
  }
  if (!vector.some((x) => x !== 0)) vector[0] = 1;
  return vector;
}

export interface EmbeddingsRequestRecord {
  path: string;
  authorization: string | undefined;
  body: { model?: string; input?: string | string[]; dimensions?: number; encoding_format?: string };
}

export interface EmbeddingsSimulator {
  /** The base URL to configure (`EMBEDDINGS_BASE_URL`), ending in `/v1`. */
  baseUrl: string;
  faults: FaultScript;
  requests: EmbeddingsRequestRecord[];
  close(): Promise<void>;
}

const errorBody = (status: number) => ({
  error: { message: `Simulated error ${status}.`, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null },
});

async function answer(
  { faults: script, requests: records }: Pick<EmbeddingsSimulator, 'faults' | 'requests'>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = (await readJsonBody(req)) as EmbeddingsRequestRecord['body'];
  records.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
  if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) {
    sendJson(res, { status: 404, body: errorBody(404) });
    return;
  }
  const mode = await applyFault(script.next(), res, { errorBody, req });
  if (mode === 'handled') return;
  const inputs = typeof body.input === 'string' ? [body.input] : (body.input ?? []);
  const data = mode === 'empty' ? [] : inputs.map((input, index) => ({ object: 'embedding', index, embedding: simulatedEmbedding(input, body.dimensions) }));
  const tokens = inputs.reduce((sum, input) => sum + Math.ceil(input.length / 4), 0);
  sendJson(res, {
    status: 200,
    body: { object: 'list', data, model: body.model ?? 'text-embedding-3-small', usage: { prompt_tokens: tokens, total_tokens: tokens } },
  });
}

/** OpenAI's `POST /v1/embeddings`, with deterministic vectors and the shared fault vocabulary. */
export async function startEmbeddingsSimulator(): Promise<EmbeddingsSimulator> {
  const faults = new FaultScript();
  const requests: EmbeddingsRequestRecord[] = [];
  const server = createServer((req, res) => {
    answer({ faults, requests }, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    faults,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
