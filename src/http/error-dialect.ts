import type { RequestHandler } from 'express';
import type { ApiError, ApiErrorBody } from '../errors/api-error';
import { anthropicErrorBody, type AnthropicErrorBody } from './formats/anthropic-errors';
import type { Route } from './route';
import type { ErrorDialect } from './request-context';

export type { ErrorDialect };

/** The body the one error handler writes for an error, in the request's dialect. */
export function errorBodyIn(dialect: ErrorDialect | undefined, error: ApiError): ApiErrorBody | AnthropicErrorBody {
  return dialect === 'anthropic' ? anthropicErrorBody(error) : error.toBody();
}

/**
 * Marks requests for routes with an `errorDialect`, by path whatever the method (a 405 on
 * `GET /v1/messages` is Anthropic-shaped too), before anything that can fail runs.
 */
export function errorDialectMarker(routes: Route[]): RequestHandler {
  const patterns = routes.flatMap(({ meta }) =>
    meta.errorDialect ? [{ dialect: meta.errorDialect, path: new RegExp(`^${meta.path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`) }] : [],
  );
  return (req, _res, next) => {
    req.errorDialect = patterns.find(({ path }) => path.test(req.path))?.dialect;
    next();
  };
}

/**
 * The marker of a route matched on its own (`addDirectRoutes`), whose path is known: its dialect set
 * outright, and nothing at all for a route in OpenAI's shape (the default: `errorDialect` stays unset, as
 * the path marker would leave it), so a chat completion runs no marker.
 */
export function routeDialectMarker({ meta }: Route): RequestHandler[] {
  const dialect = meta.errorDialect;
  if (!dialect) return [];
  return [
    (req, _res, next) => {
      req.errorDialect = dialect;
      next();
    },
  ];
}
