import { z } from 'zod';

/** OpenAI's limit: at most this many inputs in one request. */
export const MAX_EMBEDDING_INPUTS = 2048;

const tokenId = z.number().int().min(0);
const tokenIds = z.array(tokenId).min(1);

/** One text, texts, token ids or arrays of token ids, as OpenAI takes them; an empty one is refused as OpenAI does. */
const inputSchema = z.union(
  [z.string().min(1), z.array(z.string().min(1)).min(1).max(MAX_EMBEDDING_INPUTS), tokenIds, z.array(tokenIds).min(1).max(MAX_EMBEDDING_INPUTS)],
  {
    error: (issue) =>
      `${issue.input === undefined ? 'it is required and ' : ''}must be a non-empty string, an array of 1 to ${MAX_EMBEDDING_INPUTS} non-empty strings, an array of token ids, or an array of 1 to ${MAX_EMBEDDING_INPUTS} non-empty arrays of token ids`,
  },
);

/**
 * `POST /v1/embeddings` in OpenAI's format. `model` may be left out (Switchyard's extension), like the
 * automatic model's name: the Space's cheapest active embedding model answers. An unknown field is refused
 * with 400 `unknown_field`, as OpenAI refuses it (and as every other API of the service does).
 */
export const embeddingRequestSchema = z
  .strictObject({
    input: inputSchema.describe('Text to embed: a string, an array of strings, an array of token ids, or an array of such arrays.'),
    model: z
      .string()
      .min(1)
      .optional()
      .describe("An embedding model active in the key's Space; absent or the service's own name: the Space's cheapest active one."),
    encoding_format: z
      .enum(['float', 'base64'])
      .default('float')
      .describe('`float`: arrays of numbers; `base64`: each vector as the base64 of its little-endian float32 values.'),
    dimensions: z
      .number()
      .int()
      .min(1)
      .max(65_536)
      .optional()
      .describe(
        "Shorter vectors, for the models that can give them (OpenAI's text-embedding-3, the built-in test-embedding); others refuse it upstream (400).",
      ),
    user: z.string().max(256).optional().describe('The end user, passed on to providers that take it.'),
  })
  .meta({ id: 'EmbeddingRequest' });
export type EmbeddingRequestBody = z.output<typeof embeddingRequestSchema>;

export const embeddingObjectSchema = z.object({
  object: z.literal('embedding'),
  index: z.number().int().min(0).describe("The input's position."),
  embedding: z.union([z.array(z.number()), z.string()]).describe('The vector: numbers, or base64 with `encoding_format: base64`.'),
});

export const embeddingResponseSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(embeddingObjectSchema),
    model: z.string().describe('The catalog name of the model that answered.'),
    usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
  })
  .meta({ id: 'EmbeddingResponse' });
export type EmbeddingResponse = z.infer<typeof embeddingResponseSchema>;
