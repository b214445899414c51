import { createdApiKeySchema, apiKeySchema, createKeyBody, deletedKeySchema, keyListQuery, keyParams } from '../../schemas/keys';
import { pageOf } from '../../schemas/common';
import type { KeyService } from '../../services/keys/key-service';
import { defineRoute, type Route } from '../route';

const tags = ['Keys'];

const SCOPE =
  'Needs `keys:manage` (owners). A Space-scoped key sees and manages the keys of its Space only; a key of another organization answers 404. See docs/keys.md.';

export function keyRoutes({ keys }: { keys: KeyService }): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/keys',
      operationId: 'createKey',
      summary: 'Create an API key; its secret is in this response only',
      description: `${SCOPE} The new key belongs to the caller's user and can do no more than the caller's key: no permission it lacks, no other Space than a Space-scoped caller's own, no model outside its \`allowed_models\`, no life past its expiry (403 \`permission_denied\`, naming the field). Only the secret's SHA-256 hash is stored.`,
      tags,
      permission: 'keys:manage',
      body: createKeyBody,
      response: createdApiKeySchema,
      status: 201,
      errors: [404],
      handle: ({ auth, body }) => keys.create(auth, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/keys',
      operationId: 'listKeys',
      summary: "List the organization's keys, newest first (never a secret)",
      description: `${SCOPE} Revoked keys are left out unless \`include_revoked=true\`.`,
      tags,
      permission: 'keys:manage',
      query: keyListQuery,
      response: pageOf(apiKeySchema),
      status: 200,
      handle: ({ auth, query }) => keys.list(auth, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/keys/{key_id}',
      operationId: 'getKey',
      summary: 'Read a key (never its secret)',
      description: SCOPE,
      tags,
      permission: 'keys:manage',
      params: keyParams,
      response: apiKeySchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => keys.get(auth, params.key_id),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/keys/{key_id}',
      operationId: 'revokeKey',
      summary: 'Revoke a key: 401 from the next request on, in every process',
      description: `${SCOPE} The key stays listed (\`include_revoked=true\`) with \`revoked: true\`. Revoking it again answers 409 \`conflict\`.`,
      tags,
      permission: 'keys:manage',
      params: keyParams,
      response: deletedKeySchema,
      status: 200,
      errors: [404, 409],
      handle: ({ auth, params }) => keys.revoke(auth, params.key_id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/keys/{key_id}/rotate',
      operationId: 'rotateKey',
      summary: 'Give a key a new secret, shown once; the old secret stops at once',
      description: `${SCOPE} Same id, name, role, Space, expiry and models; there is no grace period (see docs/keys.md). Only a caller who could create such a key may rotate it. A revoked key answers 409 \`conflict\`.`,
      tags,
      permission: 'keys:manage',
      params: keyParams,
      response: createdApiKeySchema,
      status: 200,
      errors: [404, 409],
      handle: ({ auth, params }) => keys.rotate(auth, params.key_id),
    }),
  ];
}
