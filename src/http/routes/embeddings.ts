import { embeddingRequestSchema, embeddingResponseSchema } from '../../schemas/embeddings';
import type { ApiServices } from '../api-services';
import { clientGone } from '../client-gone';
import { openAiEmbeddingList } from '../formats/openai-embeddings';
import { defineRoute, type Route } from '../route';

export function embeddingRoutes({ embeddings }: Pick<ApiServices, 'embeddings'>): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/embeddings',
      operationId: 'createEmbedding',
      summary: "Create embeddings (OpenAI's format), routed to the Space's embedding models",
      description: [
        "OpenAI's embeddings: `input` is a string, an array of up to 2048 strings, an array of token ids or an array of such",
        "arrays; one vector per input, in input order. `model` names an embedding model active in the key's Space (a chat model,",
        'or a model not switched on, is refused with 400 naming `model`; an unknown name with 404); without `model`, or with the',
        "service's own name, the Space's cheapest active embedding model answers. `encoding_format: base64` gives each vector",
        'as the base64 of its little-endian float32 values (what the official SDKs ask for by default); `dimensions` shortens',
        "the vectors of models that can (OpenAI's text-embedding-3). Retried on the same model on 429 and 5xx; never switched",
        'to another model, whose vectors would not be comparable. Logged with its cost (`request_type: embeddings`,',
        '`x-switchyard-log-id`); at privacy level 2 the inputs are masked in the log, at level 3 nothing is kept.',
      ].join(' '),
      tags: ['Embeddings'],
      permission: 'completions:create',
      body: embeddingRequestSchema,
      response: embeddingResponseSchema,
      status: 200,
      errors: [404, 429, 502, 503, 504],
      handle: async ({ auth, body, req, res }) => {
        const { model, result } = await embeddings.create({
          auth,
          request: body,
          signal: clientGone(res),
          setHeaders: (headers) => res.set(headers),
          httpRequestId: String(req.id),
        });
        return openAiEmbeddingList(result, { model: model.model, encoding: body.encoding_format });
      },
    }),
  ];
}
