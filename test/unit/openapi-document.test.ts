import { z } from 'zod';
import { ERROR_CODES } from '../../src/errors/error-codes';
import { buildOpenApiDocument, holdersOf } from '../../src/http/openapi/build-document';
import type { OperationObject } from '../../src/http/openapi/openapi-types';
import { defineRoute, type Route } from '../../src/http/route';
import { pageOf, pageQuery } from '../../src/schemas/common';
import { unresolvedRefs, validateOpenApi } from './openapi-checks';

const widget = z.object({ id: z.uuid(), name: z.string().max(40) }).meta({ id: 'TestWidget' });
const widgetParams = z.object({ widget_id: z.uuid().describe('The widget.') });
const aWidget = { id: '00000000-0000-4000-8000-000000000000', name: 'w' };
const tags = ['Widgets'];

const routes: Route[] = [
  defineRoute({
    method: 'post',
    path: '/v1/widgets',
    operationId: 'createWidget',
    summary: 'Create a widget',
    description: 'Makes one.',
    tags,
    permission: 'apps:create',
    body: z.strictObject({ name: z.string().min(1) }).meta({ id: 'TestWidgetCreate' }),
    response: widget,
    status: 201,
    errors: [409, 429],
    handle: async () => aWidget,
  }),
  defineRoute({
    method: 'get',
    path: '/v1/widgets',
    operationId: 'listWidgets',
    summary: 'List widgets',
    tags,
    permission: null,
    query: pageQuery.extend({ color: z.enum(['red', 'blue']).describe('Only widgets of this color.') }),
    response: pageOf(widget),
    status: 200,
    handle: async () => ({ object: 'list' as const, data: [], first_id: null, last_id: null, has_more: false }),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/widgets/{widget_id}',
    operationId: 'deleteWidget',
    summary: 'Delete a widget',
    tags,
    permission: 'apps:update',
    params: widgetParams,
    status: 204,
    handle: async () => undefined,
  }),
  defineRoute({
    method: 'post',
    path: '/v1/gadgets/{gadget_id}/touch',
    operationId: 'touchGadget',
    summary: 'Touch a gadget later',
    tags: ['Gadgets'],
    permission: 'prompts:review',
    body: z.strictObject({ note: z.string().optional() }),
    status: 202,
    handle: async () => undefined,
  }),
];

const document = buildOpenApiDocument(routes, { version: '9.8.7', license: 'Apache-2.0' });
const operation = (path: string, method: 'get' | 'post' | 'delete'): OperationObject => {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`no ${method} ${path}`);
  return found;
};

describe('buildOpenApiDocument', () => {
  it('is a valid OpenAPI 3.1 document whose every $ref resolves', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: 'Switchyard', version: '9.8.7', license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } });
    expect(document.servers).toEqual([{ url: '/', description: 'This server' }]);
    expect(unresolvedRefs(document)).toEqual([]);
    const validation = validateOpenApi(document);
    expect(validation.output).toContain('"valid": true');
    expect(validation.valid).toBe(true);
  });

  it('lists each tag once, in the order routes use them', () => {
    expect(document.tags).toEqual([{ name: 'Widgets' }, { name: 'Gadgets' }]);
  });

  it('secures every operation with the bearer scheme', () => {
    expect(document.components.securitySchemes).toEqual({ bearerAuth: { type: 'http', scheme: 'bearer', description: expect.any(String) } });
    for (const item of Object.values(document.paths)) {
      for (const op of Object.values(item)) expect(op.security).toEqual([{ bearerAuth: [] }]);
    }
  });

  it('describes a create: body, 201 response, permission and the errors it can answer', () => {
    const op = operation('/v1/widgets', 'post');
    expect(op).toMatchObject({ operationId: 'createWidget', summary: 'Create a widget', tags, 'x-permission': 'apps:create' });
    expect(op.description).toBe('Makes one.\n\nRequires the `apps:create` permission (roles owner, admin).');
    expect(op.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/TestWidgetCreate' } } } });
    expect(op.responses['201']).toEqual({ description: 'Created', content: { 'application/json': { schema: { $ref: '#/components/schemas/TestWidget' } } } });
    expect(Object.keys(op.responses)).toEqual(['201', '400', '401', '403', '409', '413', '415', '429', '500']);
    expect(op.responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    expect(op.parameters).toBeUndefined();
    expect(document.components.schemas.TestWidgetCreate).toMatchObject({ additionalProperties: false, required: ['name'] });
  });

  it('turns the query schema into query parameters', () => {
    const op = operation('/v1/widgets', 'get');
    expect(op.parameters).toEqual([
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: 'How many items to return, 1 to 100.',
        schema: expect.objectContaining({ type: 'integer', default: 20, minimum: 1, maximum: 100 }),
      },
      { name: 'after', in: 'query', required: false, description: expect.stringContaining('last_id'), schema: expect.objectContaining({ format: 'uuid' }) },
      { name: 'color', in: 'query', required: true, description: 'Only widgets of this color.', schema: expect.objectContaining({ enum: ['red', 'blue'] }) },
    ]);
    expect(op.description).toBe('Any valid key may call this.');
    expect(op).not.toHaveProperty('x-permission');
    expect(Object.keys(op.responses)).toEqual(['200', '400', '401', '413', '500']);
    const listSchema = (op.responses['200'] as { content: Record<string, { schema: { properties: Record<string, unknown> } }> }).content['application/json']
      ?.schema;
    expect(listSchema?.properties.data).toEqual({ type: 'array', items: { $ref: '#/components/schemas/TestWidget' } });
  });

  it('turns path schemas into required path parameters and answers 204 without content', () => {
    const op = operation('/v1/widgets/{widget_id}', 'delete');
    expect(op.parameters).toEqual([
      { name: 'widget_id', in: 'path', required: true, description: 'The widget.', schema: expect.objectContaining({ type: 'string', format: 'uuid' }) },
    ]);
    expect(op.responses['204']).toEqual({ description: 'No Content' });
    expect(Object.keys(op.responses)).toEqual(['204', '400', '401', '403', '404', '413', '500']);
  });

  it('declares path parameters the route does not validate, and marks a body that may be empty optional', () => {
    const op = operation('/v1/gadgets/{gadget_id}/touch', 'post');
    expect(op.parameters).toEqual([{ name: 'gadget_id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(op.requestBody?.required).toBe(false);
    expect(op.responses['202']).toEqual({ description: 'Accepted' });
    expect(op.description).toBe('Requires the `prompts:review` permission (keys of the service-owner organization only).');
  });

  it('shares one Error schema listing every code, and one response per error status', () => {
    expect(document.components.schemas.Error).toMatchObject({
      type: 'object',
      required: ['error'],
      properties: { error: { required: ['message', 'type', 'code', 'param'], properties: { code: { enum: Object.keys(ERROR_CODES) } } } },
    });
    const statuses = [...new Set(Object.values(ERROR_CODES).map((entry) => entry.status))];
    expect(Object.keys(document.components.responses)).toHaveLength(statuses.length);
    expect(document.components.responses.Conflict).toEqual({
      description: 'Conflict. Codes: `conflict`, `invalid_state_transition`, `idempotency_request_in_progress`, `idempotency_answer_not_kept`.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
  });

  it('writes the rules the spec leaves open into info.description', () => {
    const text = document.info.description;
    for (const [code, { status, type }] of Object.entries(ERROR_CODES)) expect(text).toContain(`| \`${code}\` | ${status} | \`${type}\` |`);
    expect(text).toContain('| `keys:manage` | yes |  |  |  |');
    expect(text).toContain('| publish | `POST /v1/prompts/{prompt_id}/publish` | draft, declined | pending |');
    expect(text).toContain('served without a key');
    expect(text).toContain('`3`: nothing is stored; `GET /v1/logs/{log_id}` answers 404');
  });

  it('refuses two routes with the same method and path', () => {
    const first = routes[0] as Route;
    expect(() => buildOpenApiDocument([first, first], { version: '1', license: 'MIT' })).toThrow('Two routes define POST /v1/widgets');
  });
});

describe('holdersOf', () => {
  it('names the roles that hold a permission, or the service owners', () => {
    expect(holdersOf('prompts:read')).toBe('roles owner, admin, member, viewer');
    expect(holdersOf('keys:manage')).toBe('roles owner');
    expect(holdersOf('queues:admin')).toBe('keys of the service-owner organization only');
  });
});
