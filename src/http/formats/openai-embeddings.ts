import type { EmbeddingResult } from '../../domain/embedding';
import type { EmbeddingResponse } from '../../schemas/embeddings';

/** OpenAI's base64 vector: its float32 values, little-endian, one after another. */
export function base64Vector(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

/** A provider's vectors as OpenAI's `list` of `embedding` objects, under the catalog name of the model. */
export function openAiEmbeddingList(result: EmbeddingResult, { model, encoding }: { model: string; encoding: 'float' | 'base64' }): EmbeddingResponse {
  return {
    object: 'list',
    data: result.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: encoding === 'base64' ? base64Vector(vector) : vector })),
    model,
    usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens },
  };
}
