import { z } from 'zod';
import { appModelsResponse, failoverResponse, modelActiveForAppSchema, setFailoverBody, setModelActiveBody } from '../../schemas/models';
import type { AppModelService } from '../../services/apps/app-model-service';
import { defineRoute, type Route } from '../route';

const appParams = z.object({ app_id: z.uuid() });
const appModelParams = z.object({ app_id: z.uuid(), model_id: z.uuid() });
const tags = ['Space models'];

export function appModelRoutes({ appModels }: { appModels: AppModelService }): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/apps/{app_id}/models',
      operationId: 'listAppModels',
      summary: 'List the models of a Space',
      description:
        'Every public catalog model with its state in the Space, the custom models available to it (extra field `custom_model_settings`), and the failover chain.',
      tags,
      permission: 'models:read',
      params: appParams,
      response: appModelsResponse,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => appModels.list(auth, params.app_id),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/apps/{app_id}/models/{model_id}',
      operationId: 'setAppModelActive',
      summary: 'Switch a model on or off in a Space',
      description: 'A globally disabled model cannot be switched on, and a model in the failover chain cannot be switched off (409).',
      tags,
      permission: 'models:update',
      params: appModelParams,
      body: setModelActiveBody,
      response: modelActiveForAppSchema,
      status: 200,
      errors: [404, 409],
      handle: ({ auth, params, body }) => appModels.setActive(auth, { appId: params.app_id, modelId: params.model_id }, body.active),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/apps/{app_id}/failover',
      operationId: 'setAppFailoverChain',
      summary: 'Replace the failover chain of a Space',
      description:
        "Up to 10 distinct models, each active in the Space, first fallback first. Whether the chain is used is the Space's `has_failover_chain` switch (set through PUT /v1/apps/update); setting a chain does not change it.",
      tags,
      permission: 'models:update',
      params: appParams,
      body: setFailoverBody,
      response: failoverResponse,
      status: 200,
      errors: [404],
      handle: ({ auth, params, body }) => appModels.setFailover(auth, params.app_id, body.model_ids),
    }),
  ];
}
