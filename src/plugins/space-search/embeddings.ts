import { z } from 'zod';
import type { EmbeddingsConfig } from '../../config/plugins/space-search';
import type { HttpClient } from '../../net/http-client';
import { ProviderError } from '../../providers/provider-error';

const SERVICE = 'embeddings';

/** OpenAI's `POST /v1/embeddings` answer, as far as we read it. */
const embeddingsResponse = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()).min(1) })),
  usage: z.object({ prompt_tokens: z.number().int().min(0) }).optional(),
});

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

function invalid(message: string): ProviderError {
  return new ProviderError({ kind: 'invalid_response', provider: SERVICE, message: `${SERVICE}: ${message}` });
}

/** Scaled to length 1, so that a dot product is the cosine similarity. */
export function unitLength(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  if (!Number.isFinite(norm) || norm === 0) throw invalid('a vector has no length');
  return vector.map((x) => x / norm);
}

/** Vectors in input order; the answer must hold exactly one per input, all of one dimension. */
function vectorsOf(body: unknown, count: number): Embeddings {
  const parsed = embeddingsResponse.safeParse(body);
  if (!parsed.success) throw invalid('the answer is not an embeddings list');
  const { data, usage } = parsed.data;
  const byIndex = new Map(data.map((item) => [item.index, item.embedding]));
  if (data.length !== count || byIndex.size !== count) throw invalid(`${data.length} vectors for ${count} inputs`);
  const vectors = Array.from({ length: count }, (_, index) => byIndex.get(index));
  const dimensions = vectors[0]?.length;
  if (vectors.some((vector) => !vector || vector.length !== dimensions)) throw invalid('the vectors are not one per input of one dimension');
  return { vectors: (vectors as number[][]).map(unitLength), promptTokens: usage?.prompt_tokens ?? 0 };
}

/** One call of an OpenAI-compatible embeddings endpoint; failures are ProviderErrors. */
export async function embed(client: HttpClient, config: EmbeddingsConfig, request: EmbedRequest): Promise<Embeddings> {
  if (request.inputs.length === 0) return { vectors: [], promptTokens: 0 };
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
