import { z } from 'zod';
import { modelListQuery, modelListSchema, modelObjectSchema } from '../../schemas/openai-models';
import type { ModelListService } from '../../services/models/model-list-service';
import { defineRoute, type Route } from '../route';

const tags = ['Models'];

export function modelRoutes({ models }: { models: ModelListService }): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/models',
      operationId: 'listModels',
      summary: "List the models the key's Space can be asked for (OpenAI's format)",
      description:
        "The service's own name first (`automatic: true`: the router picks a model per request), then every model active in the Space, not switched off service-wide and able to answer now (its provider's key is set, it is not retired). With `all=true`, also every other model the Space can see, each with `available: false` and `unavailable_reason` (`{code, message}`, e.g. `provider_key_missing`, `not_active_in_space`). Needs a key bound to a Space.",
      tags,
      permission: 'completions:create',
      query: modelListQuery,
      response: modelListSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, query }) => models.list(auth, { all: query.all }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/models/{model}',
      operationId: 'retrieveModel',
      summary: "Read one of the Space's models by the name sent as `model`",
      description:
        'Models that cannot answer now are found too, with `available: false` and `unavailable_reason`. An unknown name answers 404 naming the closest names the Space can use.',
      tags,
      permission: 'completions:create',
      params: z.object({ model: z.string().min(1).max(200) }),
      response: modelObjectSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => models.get(auth, params.model),
    }),
  ];
}
