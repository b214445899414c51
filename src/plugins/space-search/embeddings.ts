import type { EmbeddingsConfig } from '../../config/plugins/space-search';
import type { HttpClient } from '../../net/http-client';
import { embeddingResultOf } from '../../providers/openai-compatible/embeddings';
import { testEmbeddings } from '../../providers/test/hashed-embedding';
import { UpstreamError } from '../../errors/upstream-error';

const SERVICE = 'embeddings';

export interface Embeddings {
  /** One unit-length vector per input, in input order. */
  vectors: number[][];
  promptTokens: number;
}

export interface EmbedRequest {
  inputs: string[];
  signal: AbortSignal;
  timeoutMs: number;
}

function invalid(message: string): UpstreamError {
  return new UpstreamError({ kind: 'invalid_response', provider: SERVICE, message: `${SERVICE}: ${message}` });
}

/** Scaled to length 1, so that a dot product is the cosine similarity. */
export function unitLength(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  if (!Number.isFinite(norm) || norm === 0) throw invalid('a vector has no length');
  return vector.map((x) => x / norm);
}

/** Vectors in input order (the providers' shared reading of OpenAI's answer), scaled to unit length. */
function vectorsOf(body: unknown, count: number): Embeddings {
  const { vectors, promptTokens } = embeddingResultOf(SERVICE, body, count);
  return { vectors: vectors.map(unitLength), promptTokens };
}

/**
 * One call of an OpenAI-compatible embeddings endpoint, or the built-in test model computed here with
 * no network (its vectors are unit length already); failures are UpstreamErrors.
 */
export async function embed(client: HttpClient, config: EmbeddingsConfig, request: EmbedRequest): Promise<Embeddings> {
  if (request.inputs.length === 0) return { vectors: [], promptTokens: 0 };
  if (config.backend === 'test') return testEmbeddings(request.inputs);
  const response = await client({
    method: 'POST',
    url: `${config.baseUrl.replace(/\/+$/, '')}/embeddings`,
    headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
    body: JSON.stringify({ model: config.model, input: request.inputs, encoding_format: 'float' }),
    signal: request.signal,
    timeoutMs: request.timeoutMs,
    service: SERVICE,
  });
  return vectorsOf(response.json(), request.inputs.length);
}

/** USD for `tokens` input tokens. */
export function embeddingsCost(config: EmbeddingsConfig, tokens: number): number {
  return (tokens * config.costUsdPerMtok) / 1_000_000;
}
