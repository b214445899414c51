import { z } from 'zod';
import { createCustomModelBody, customModelListSchema, customModelSchema, deletedCustomModelSchema, updateCustomModelBody } from '../../schemas/custom-models';
import type { CustomModelService } from '../../services/custom-models/custom-model-service';
import { defineRoute, type Route } from '../route';

const modelParams = z.object({ model_id: z.uuid() });
const tags = ['Custom models'];
const PATH = '/v1/custom_models';

export function customModelRoutes({ customModels }: { customModels: CustomModelService }): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: PATH,
      operationId: 'createCustomModel',
      summary: "Add a model served by the organization's own OpenAI-compatible server",
      description:
        "Ollama, vLLM or any server speaking OpenAI's chat completions. The base URL must reach a public address unless the operator allows the host (`SSRF_ALLOWED_HOSTS`); the API key is stored sealed and never returned. The model then shows in every Space's `custom_model_settings`, switched off until activated there.",
      tags,
      permission: 'models:update',
      body: createCustomModelBody,
      response: customModelSchema,
      status: 201,
      errors: [409],
      handle: ({ auth, body }) => customModels.create({ orgId: auth.orgId, addedBy: auth.idpId }, body),
    }),
    defineRoute({
      method: 'get',
      path: PATH,
      operationId: 'listCustomModels',
      summary: "List the organization's custom models",
      tags,
      permission: 'models:read',
      response: customModelListSchema,
      status: 200,
      handle: async ({ auth }) => ({ object: 'list' as const, data: await customModels.list(auth.orgId) }),
    }),
    defineRoute({
      method: 'get',
      path: `${PATH}/{model_id}`,
      operationId: 'getCustomModel',
      summary: 'Get a custom model',
      tags,
      permission: 'models:read',
      params: modelParams,
      response: customModelSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => customModels.get(auth.orgId, params.model_id),
    }),
    defineRoute({
      method: 'patch',
      path: `${PATH}/{model_id}`,
      operationId: 'updateCustomModel',
      summary: 'Change a custom model',
      description: 'Fields left out are kept; `api_key: null` removes the key. The change applies to the next request of every Space.',
      tags,
      permission: 'models:update',
      params: modelParams,
      body: updateCustomModelBody,
      response: customModelSchema,
      status: 200,
      errors: [404, 409],
      handle: ({ auth, params, body }) => customModels.update(auth.orgId, params.model_id, body),
    }),
    defineRoute({
      method: 'delete',
      path: `${PATH}/{model_id}`,
      operationId: 'deleteCustomModel',
      summary: 'Remove a custom model',
      description: 'Also removes it from every Space and failover chain; logs keep their figures.',
      tags,
      permission: 'models:update',
      params: modelParams,
      response: deletedCustomModelSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => customModels.remove(auth.orgId, params.model_id),
    }),
  ];
}
