import { z } from 'zod';
import type { EmbeddingRequest, EmbeddingResult } from '../../domain/embedding';
import { UpstreamError } from '../../errors/upstream-error';
import type { OpenAiCompatibleVendor } from './vendors';

/**
 * A vector: a non-empty array of finite numbers, checked in one pass over the array as it is.
 * `z.array(z.number())` builds a checked copy of every vector (1,536 numbers for text-embedding-3-small):
 * about 44 KB allocated per space-search call (`npm run bench:plugins -- --allocations`).
 */
const vector = z.custom<number[]>((value) => Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === 'number' && Number.isFinite(x)));

/** OpenAI's `POST /v1/embeddings` answer, as far as we read it (vectors asked for as floats). */
const embeddingsAnswer = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: vector })),
  usage: z.object({ prompt_tokens: z.number().int().min(0).optional(), total_tokens: z.number().int().min(0).optional() }).nullish(),
});

/**
 * The JSON body of an embeddings call. Vectors are asked for as floats: every OpenAI-compatible server
 * gives those, while base64 is not universal; the API edge encodes them again if its client wants base64.
 * Fields the vendor refuses (Mistral's strict validation refuses `user`) are left out.
 */
export function embeddingsBody(vendor: OpenAiCompatibleVendor, request: EmbeddingRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model, input: request.inputs, encoding_format: 'float' };
  if (request.dimensions !== undefined) body.dimensions = request.dimensions;
  if (request.user !== undefined && !vendor.unsupported.includes('user')) body.user = request.user;
  return body;
}

function invalid(provider: string, message: string): UpstreamError {
  return new UpstreamError({ kind: 'invalid_response', provider, message: `${provider}: ${message}` });
}

/**
 * Vectors in input order from an embeddings answer; it must hold exactly one per input (by `index`),
 * all of one length. Shared by the providers and the space-search plugin's embeddings backend.
 */
export function embeddingResultOf(provider: string, raw: unknown, count: number): EmbeddingResult {
  const parsed = embeddingsAnswer.safeParse(raw);
  if (!parsed.success) throw invalid(provider, 'the answer is not an embeddings list');
  const { data, usage } = parsed.data;
  const byIndex = new Map(data.map((item) => [item.index, item.embedding]));
  if (data.length !== count || byIndex.size !== count) throw invalid(provider, `${data.length} vectors for ${count} inputs`);
  const vectors = Array.from({ length: count }, (_, index) => byIndex.get(index) ?? []);
  const dimensions = vectors[0]?.length;
  if (vectors.some((vector) => vector.length === 0 || vector.length !== dimensions))
    throw invalid(provider, 'the vectors are not one per input of one dimension');
  return { vectors, promptTokens: usage?.prompt_tokens ?? usage?.total_tokens ?? 0 };
}
