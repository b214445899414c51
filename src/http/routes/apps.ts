import { z } from 'zod';
import { appListQuery, createAppBody, spaceDetailSchema, spacePairSchema, spaceSchema, updateAppBody } from '../../schemas/apps';
import { pageOf } from '../../schemas/common';
import type { AppService } from '../../services/apps/app-service';
import { defineRoute, type Route } from '../route';

const appParams = z.object({ app_id: z.uuid() });
const tags = ['Spaces'];

export function appRoutes({ apps }: { apps: AppService }): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/apps',
      operationId: 'createApp',
      summary: "Create a Space in the caller's organization",
      description: "The catalog's default-active public models are switched on in the new Space.",
      tags,
      permission: 'apps:create',
      body: createAppBody,
      response: spaceDetailSchema,
      status: 201,
      handle: ({ auth, body }) => apps.create(auth, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps',
      operationId: 'listApps',
      summary: "List the organization's main Spaces (not sandboxes), newest first",
      tags,
      permission: 'apps:read',
      query: appListQuery,
      response: pageOf(spaceSchema),
      status: 200,
      handle: ({ auth, query }) => apps.list(auth, query),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/apps/update',
      operationId: 'updateApp',
      summary: 'Update the configuration of a Space',
      description:
        'Partial update: only the fields sent change, and `weights`, `policies` and `settings` merge key by key. Updating a main Space or its sandbox turns an `up_to_date` sandbox status into `outdated`. The response always carries the main Space, its sandbox and the sandbox status.',
      tags,
      permission: 'apps:update',
      body: updateAppBody,
      response: spacePairSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, body }) => apps.update(auth, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{app_id}',
      operationId: 'getApp',
      summary: 'Read a main or sandbox Space with its models',
      tags,
      permission: 'apps:read',
      params: appParams,
      response: spaceDetailSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => apps.get(auth, params.app_id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/apps/{app_id}/sandbox',
      operationId: 'syncAppSandbox',
      summary: 'Create or refresh the sandbox copy of a main Space',
      description:
        "Sets the main Space's `sandbox_status` to `syncing` and queues a `sandbox-sync` job, which copies the configuration, model states and failover chain into the sandbox and then sets the status to `up_to_date` (or `failed` once its retries are spent).",
      tags,
      permission: 'apps:update',
      params: appParams,
      response: spacePairSchema,
      status: 202,
      errors: [404],
      handle: ({ auth, params }) => apps.requestSandbox(auth, params.app_id),
    }),
  ];
}
