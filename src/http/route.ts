import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { can, type AuthContext } from '../auth/auth-context';
import type { Permission } from '../domain/permissions';
import { ApiError } from '../errors/api-error';
import { apiErrorFromZod } from '../errors/zod-error';
import { findBodyProblem, findInputProblem, problemError } from '../schemas/input-guard';
import type { ErrorDialect } from './request-context';
import { unknownPathId, vanishedRowAs404 } from './unknown-path-id';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type SuccessStatus = 200 | 201 | 202 | 204;

/** What the OpenAPI generator and the router need to know about a route. */
export interface RouteMeta {
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/v1/apps/{app_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Permission the key needs; null means any valid key. */
  permission: Permission | null;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /**
   * A `multipart/form-data` body (an upload), described for the OpenAPI document only: the handler
   * reads it itself, after its checks, and the JSON body parser lets it through.
   */
  multipartBody?: z.ZodType;
  response?: z.ZodType;
  status: SuccessStatus;
  /** Error statuses this route can answer with besides 400/401/403/415/500, for the docs. */
  errors?: number[];
  /** Request headers the route reads (besides Authorization), for the docs. */
  headers?: { name: string; description: string }[];
  /** Another API's error shape for every error of this route (auth, validation, upstream); OpenAI's when absent. */
  errorDialect?: ErrorDialect;
  /** A second success answer besides `status` (202 for `Prefer: respond-async`), for the docs. */
  alternative?: { status: SuccessStatus; description: string; response: z.ZodType; headers: Record<string, string> };
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  auth: AuthContext;
  req: Request;
  res: Response;
}

export interface Route {
  meta: RouteMeta;
  handler: RequestHandler;
}

const EMPTY = z.object({});

/** What `EMPTY` parses anything to; frozen, since every request of such a route shares it. */
const NONE_TAKEN = Object.freeze(EMPTY.parse({}));

/** Returned by a handler that wrote the response itself (a stream). */
export const RESPONDED: unique symbol = Symbol('responded');

interface RouteDefinition<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends z.ZodType> extends Omit<
  RouteMeta,
  'params' | 'query' | 'body' | 'response'
> {
  params?: P;
  query?: Q;
  body?: B;
  response?: R;
  handle(input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>): Promise<z.input<R> | typeof RESPONDED>;
}

/** How every request value is parsed (zod copies it and reads it; never written). */
const PARSE_OPTIONS = Object.freeze({ reportInput: true });

function parse<S extends z.ZodType>(schema: S, value: unknown, source: 'path' | 'query' | 'body'): z.output<S> {
  const result = schema.safeParse(value, PARSE_OPTIONS);
  if (result.success) return result.data;
  // A malformed id in the path names nothing, exactly like an unknown one.
  if (source === 'path') throw unknownPathId(String(result.error.issues[0]?.path[0] ?? 'path'));
  throw apiErrorFromZod(result.error, source);
}

/**
 * The one check every request passes before validation: no text PostgreSQL cannot store (NUL, an unpaired
 * surrogate) in a path id, a query value or anywhere in the body, since a request accepted is stored
 * whole; and no body nested deeper than MAX_JSON_DEPTH.
 */
function guardInput(req: Request): void {
  const params = req.params as Record<string, unknown>;
  for (const name in params) {
    if (findInputProblem(params[name])) throw unknownPathId(name);
  }
  // Without a `?` the query is empty (Express parses `req.query` from req.url anew at each read): nothing to look at.
  const queryProblem = req.url.includes('?') ? findInputProblem(req.query) : null;
  if (queryProblem) throw problemError(queryProblem, 'query');
  const bodyProblem = findBodyProblem(req);
  if (bodyProblem) throw problemError(bodyProblem, 'body');
}

function requireAuth(req: Request): AuthContext {
  if (!req.auth) throw new ApiError('missing_api_key', 'Missing Authorization header.', 'Authorization');
  return req.auth;
}

/**
 * One definition serves validation, the handler's types and the OpenAPI document.
 * Handlers return the response body; the status comes from the definition.
 */
export function defineRoute<
  P extends z.ZodType = typeof EMPTY,
  Q extends z.ZodType = typeof EMPTY,
  B extends z.ZodType = z.ZodUndefined,
  R extends z.ZodType = z.ZodUndefined,
>(definition: RouteDefinition<P, Q, B, R>): Route {
  const { handle, ...meta } = definition;
  const handler: RequestHandler = async (req, res) => {
    const auth = requireAuth(req);
    if (meta.permission && !can(auth, meta.permission)) {
      throw new ApiError('permission_denied', `This key lacks the '${meta.permission}' permission.`);
    }
    guardInput(req);
    const input: RouteInput<z.output<P>, z.output<Q>, z.output<B>> = {
      // A route without a params or query schema takes none: what `EMPTY` would parse them to, without parsing.
      params: definition.params ? parse(definition.params, req.params, 'path') : (NONE_TAKEN as z.output<P>),
      query: definition.query ? parse(definition.query, req.query, 'query') : (NONE_TAKEN as z.output<Q>),
      body: definition.body ? parse(definition.body, req.body ?? {}, 'body') : (undefined as z.output<B>),
      auth,
      req,
      res,
    };
    let result: Awaited<ReturnType<typeof handle>>;
    try {
      result = await handle(input);
    } catch (err) {
      // try/catch rather than a .catch(): no extra promise for every request that succeeds.
      throw vanishedRowAs404(err, input.params as Record<string, unknown>);
    }
    if (result === RESPONDED) return;
    if (meta.status === 204) res.status(204).end();
    else res.status(meta.status).json(result);
  };
  return { meta, handler };
}

/** `/v1/apps/{app_id}` → `/v1/apps/:app_id` */
export function toExpressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

/** Whether a request is for one of the routes that take a multipart body (they read it themselves). */
/** Whether a request names one of the routes (its method and path): asked only on an error path. */
export function routeMatcher(routes: Route[]): (req: { method: string; path: string }) => boolean {
  const patterns = routes.map(({ meta }) => ({ method: meta.method.toUpperCase(), path: new RegExp(`^${meta.path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`) }));
  return (req) => patterns.some(({ method, path }) => method === req.method && path.test(req.path));
}

export function multipartMatcher(routes: Route[]): (req: { method: string; path: string }) => boolean {
  const patterns = routes
    .filter(({ meta }) => meta.multipartBody)
    .map(({ meta }) => ({ method: meta.method.toUpperCase(), path: new RegExp(`^${meta.path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`) }));
  return (req) => patterns.some(({ method, path }) => method === req.method && path.test(req.path));
}
