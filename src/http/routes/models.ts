import { z } from 'zod';
import { modelListSchema, modelObjectSchema } from '../../schemas/openai-models';
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
        "The service's own name first (`automatic: true`: the router picks a model per request), then every model active in the Space and not switched off service-wide. Needs a key bound to a Space.",
      tags,
      permission: 'completions:create',
      response: modelListSchema,
      status: 200,
      errors: [404],
      handle: ({ auth }) => models.list(auth),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/models/{model}',
      operationId: 'retrieveModel',
      summary: "Read one of the Space's models by the name sent as `model`",
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
