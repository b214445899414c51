import { z } from 'zod';
import { pageOf } from '../../schemas/common';
import { assistantDetailSchema, assistantListQuery, assistantSchema, createAssistantBody, updateAssistantBody } from '../../schemas/assistants';
import type { AssistantService } from '../../services/assistants/assistant-service';
import { defineRoute, type Route } from '../route';

const appParams = z.object({ app_id: z.uuid() });
const assistantParams = appParams.extend({ assistant_id: z.uuid() });
const tags = ['Assistants'];

const VISIBILITY_NOTE =
  'A `private` assistant is seen only by keys of its creator (same `idp_id`); `organization` and `public` ones by every key of the organization. `definition_visibility` rules `assistant_config` the same way.';

export function assistantRoutes({ assistants }: { assistants: AssistantService }): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/apps/{app_id}/assistants/',
      operationId: 'createAssistant',
      summary: 'Create an assistant in a Space',
      description:
        'Stores the assistant with version 1 of its configuration. The slug is derived from the name and made unique in the Space with `-2`, `-3`, ... The path also answers without the trailing slash.',
      tags,
      permission: 'assistants:write',
      params: appParams,
      body: createAssistantBody,
      response: assistantSchema,
      status: 201,
      errors: [404],
      handle: ({ auth, params, body }) => assistants.create(auth, params.app_id, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{app_id}/assistants',
      operationId: 'listAssistants',
      summary: 'List the assistants of a Space, newest first',
      description: VISIBILITY_NOTE,
      tags,
      permission: 'assistants:read',
      params: appParams,
      query: assistantListQuery,
      response: pageOf(assistantSchema),
      status: 200,
      errors: [404],
      handle: ({ auth, params, query }) => assistants.list(auth, params.app_id, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{app_id}/assistants/{assistant_id}',
      operationId: 'getAssistant',
      summary: 'Read an assistant with the configuration of its current version',
      description: VISIBILITY_NOTE,
      tags,
      permission: 'assistants:read',
      params: assistantParams,
      response: assistantDetailSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => assistants.get(auth, { appId: params.app_id, assistantId: params.assistant_id }),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/apps/{app_id}/assistants/{assistant_id}',
      operationId: 'updateAssistant',
      summary: 'Change some fields of an assistant',
      description:
        'Fields left out keep their value. A different `assistant_config` becomes a new version; renaming keeps the slug. Only keys that may see the definition may update an assistant.',
      tags,
      permission: 'assistants:write',
      params: assistantParams,
      body: updateAssistantBody,
      response: assistantSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params, body }) => assistants.update(auth, { appId: params.app_id, assistantId: params.assistant_id }, body),
    }),
  ];
}
