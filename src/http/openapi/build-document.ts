import { readFileSync } from 'node:fs';
import path from 'node:path';
import { STATUS_CODES } from 'node:http';
import type { z } from 'zod';
import { ROLES, permissionsFor, type Permission } from '../../domain/permissions';
import { projectRoot } from '../../config/project-root';
import type { Route, RouteMeta } from '../route';
import { anthropicErrorSchema } from '../../schemas/anthropic-messages';
import { anthropicErrorType } from '../formats/anthropic-errors';
import { apiDescription } from './api-description';
import { ERROR_SCHEMA, errorBodySchema, errorResponseRef, errorResponses, errorStatusesOf } from './error-responses';
import { SchemaCollector } from './json-schema';
import type { OpenApiDocument, OperationObject, ParameterObject, RequestBodyObject, ResponseObject } from './openapi-types';

export const BEARER_AUTH = 'bearerAuth';
const JSON_MEDIA_TYPE = 'application/json';
const MULTIPART_MEDIA_TYPE = 'multipart/form-data';

export interface DocumentInfo {
  version: string;
  license: string;
}

/** Version and licence as package.json states them, read from the project folder (works from src/ and dist/). */
export function packageInfo(): DocumentInfo {
  const raw = JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version?: unknown; license?: unknown };
  return { version: String(raw.version ?? '0.0.0'), license: String(raw.license ?? 'UNLICENSED') };
}

/** `{app_id}` names in an OpenAPI path, in order. */
function pathParameterNames(openApiPath: string): string[] {
  return [...openApiPath.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
}

function parametersOf(meta: RouteMeta, schemas: SchemaCollector): ParameterObject[] {
  const result: ParameterObject[] = [];
  const declared = meta.params ? schemas.objectShape(meta.params, `${meta.operationId}Path`) : { properties: {}, required: [] };
  for (const name of pathParameterNames(meta.path)) {
    // A path parameter the route does not validate is still a string in the URL.
    const schema = declared.properties[name] ?? { type: 'string' };
    result.push({ name, in: 'path', required: true, ...describedBy(schema), schema });
  }
  if (meta.query) {
    const query = schemas.objectShape(meta.query, `${meta.operationId}Query`);
    for (const [name, schema] of Object.entries(query.properties)) {
      result.push({ name, in: 'query', required: query.required.includes(name), ...describedBy(schema), schema });
    }
  }
  for (const header of meta.headers ?? [])
    result.push({ name: header.name, in: 'header', required: false, description: header.description, schema: { type: 'string' } });
  return result;
}

function describedBy(schema: { description?: string }): { description?: string } {
  return schema.description ? { description: schema.description } : {};
}

/**
 * The handler reads a missing body as `{}`, so a body is optional exactly when `{}` passes its schema.
 * A schema that cannot be checked synchronously (async refinements) is taken as required.
 */
function acceptsEmptyBody(body: z.ZodType): boolean {
  try {
    return body.safeParse({}).success;
  } catch {
    return false;
  }
}

function requestBodyOf(meta: RouteMeta, schemas: SchemaCollector): RequestBodyObject | undefined {
  if (meta.multipartBody) {
    const schema = schemas.convert(meta.multipartBody, 'input', `${meta.operationId}Body`);
    return { required: true, content: { [MULTIPART_MEDIA_TYPE]: { schema } } };
  }
  if (!meta.body) return undefined;
  const schema = schemas.convert(meta.body, 'input', `${meta.operationId}Body`);
  return { required: !acceptsEmptyBody(meta.body), content: { [JSON_MEDIA_TYPE]: { schema } } };
}

function successResponseOf(meta: RouteMeta, schemas: SchemaCollector): ResponseObject {
  const description = STATUS_CODES[meta.status] ?? 'Success';
  if (meta.status === 204 || !meta.response) return { description };
  const schema = schemas.convert(meta.response, 'output', `${meta.operationId}Response`);
  return { description, content: { [JSON_MEDIA_TYPE]: { schema } } };
}

/** Who holds a permission, in words, from the role table. */
export function holdersOf(permission: Permission): string {
  const roles = ROLES.filter((role) => permissionsFor(role, false).includes(permission));
  if (roles.length) return `roles ${roles.join(', ')}`;
  return 'keys of the service-owner organization only';
}

function descriptionOf(meta: RouteMeta): string | undefined {
  const access = meta.permission ? `Requires the \`${meta.permission}\` permission (${holdersOf(meta.permission)}).` : 'Any valid key may call this.';
  return meta.description ? `${meta.description}\n\n${access}` : access;
}

function alternativeResponseOf(alternative: NonNullable<RouteMeta['alternative']>, meta: RouteMeta, schemas: SchemaCollector): ResponseObject {
  const schema = schemas.convert(alternative.response, 'output', `${meta.operationId}Response${alternative.status}`);
  const headers = Object.fromEntries(
    Object.entries(alternative.headers).map(([name, description]) => [name, { description, schema: { type: 'string' as const } }]),
  );
  return { description: alternative.description, content: { [JSON_MEDIA_TYPE]: { schema } }, headers };
}

/** An error of a route that answers in Anthropic's shape (see `errorDialect`). */
function anthropicErrorResponse(status: number, schemas: SchemaCollector): ResponseObject {
  const schema = schemas.convert(anthropicErrorSchema, 'output', 'AnthropicError');
  const reason = STATUS_CODES[status] ?? `Status ${status}`;
  return { description: `${reason}, in Anthropic's shape: \`error.type\` is \`${anthropicErrorType(status)}\`.`, content: { [JSON_MEDIA_TYPE]: { schema } } };
}

function operationOf(meta: RouteMeta, schemas: SchemaCollector): OperationObject {
  const parameters = parametersOf(meta, schemas);
  const requestBody = requestBodyOf(meta, schemas);
  const responses: OperationObject['responses'] = { [String(meta.status)]: successResponseOf(meta, schemas) };
  if (meta.alternative) responses[String(meta.alternative.status)] = alternativeResponseOf(meta.alternative, meta, schemas);
  for (const status of errorStatusesOf(meta))
    responses[String(status)] = meta.errorDialect === 'anthropic' ? anthropicErrorResponse(status, schemas) : errorResponseRef(status);
  return {
    operationId: meta.operationId,
    summary: meta.summary,
    description: descriptionOf(meta),
    tags: meta.tags,
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    security: [{ [BEARER_AUTH]: [] }],
    ...(meta.permission ? { 'x-permission': meta.permission } : {}),
  };
}

function uniqueTags(routes: Route[]): { name: string }[] {
  return [...new Set(routes.flatMap((route) => route.meta.tags))].map((name) => ({ name }));
}

/** The OpenAPI 3.1 document of every route, generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(routes: Route[], info: DocumentInfo = packageInfo()): OpenApiDocument {
  const schemas = new SchemaCollector();
  const paths: OpenApiDocument['paths'] = {};
  for (const { meta } of routes) {
    const item = (paths[meta.path] ??= {});
    if (item[meta.method]) throw new Error(`Two routes define ${meta.method.toUpperCase()} ${meta.path}`);
    item[meta.method] = operationOf(meta, schemas);
  }
  const errorSchema = schemas.convert(errorBodySchema, 'output', ERROR_SCHEMA);
  const extraStatuses = routes.flatMap((route) => route.meta.errors ?? []);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchyard',
      version: info.version,
      description: apiDescription(),
      license: { name: info.license, identifier: info.license },
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: uniqueTags(routes),
    security: [{ [BEARER_AUTH]: [] }],
    paths,
    components: {
      schemas: schemas.finish({ [ERROR_SCHEMA]: errorSchema }),
      responses: errorResponses(extraStatuses),
      securitySchemes: {
        [BEARER_AUTH]: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`.' },
      },
    },
  };
}
