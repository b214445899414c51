import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config/schema';
import { CONSOLE_PATH, consoleRouter } from '../http/console';
import { errorDialectMarker, routeDialectMarker } from '../http/error-dialect';
import { errorHandler, notFoundHandler } from '../http/error-handler';
import { authenticate } from '../http/middleware/authenticate';
import { corsMiddleware } from '../http/middleware/cors';
import { addServiceIndex } from '../http/service-index';
import { jsonBody } from '../http/middleware/json-body';
import { requestLogger } from '../http/middleware/request-logger';
import { addDirectRoutes, mountRoutes } from '../http/mount-routes';
import { multipartMatcher, routeMatcher } from '../http/route';
import { addOpenApiRoutes } from '../http/openapi/openapi-router';
import { allRoutes } from '../http/routes/index';
import { addOperationRoutes } from '../http/routes/operations';
import { addMetricsRoute } from '../http/routes/metrics';
import { httpTelemetry } from '../observability/http-telemetry';
import { metricsSourceOfThisProcess } from '../observability/metrics-source';
import type { ApiServices } from '../http/api-services';

export interface AppDeps {
  config: Readonly<Config>;
  logger: Logger;
  services: ApiServices;
}

/** Builds the Express app; nothing listens or connects here. */
export function buildApp({ config, logger, services }: AppDeps): Express {
  const routes = allRoutes(services);
  const app = express();
  app.disable('x-powered-by');
  // Every body is fresh (completions, logs); hashing each one for an ETag only costs CPU.
  app.set('etag', false);
  // Decides req.ip, which the failed-authentication throttle counts per address (see TRUST_PROXY).
  app.set('trust proxy', config.trustProxy);
  const telemetry = httpTelemetry();
  const logAccess = requestLogger(logger);
  // Before authentication: a browser's preflight carries no key.
  const cors = corsMiddleware(config.corsOrigins);
  const dialect = errorDialectMarker(routes);
  const body = jsonBody(config.bodyLimitBytes, { takesMultipart: multipartMatcher(routes), exists: routeMatcher(routes) });
  const auth = authenticate(services.authenticator);
  // A direct route's path is known: its error dialect is marked outright, and not at all for OpenAI's shape.
  addDirectRoutes(app, routes, (route) => [...telemetry, logAccess, ...(cors ? [cors] : []), ...routeDialectMarker(route), ...body, auth]);
  app.use(telemetry);
  app.use(logAccess);
  if (cors) app.use(cors);
  // Added to the app itself: a Router per group would be entered by every request (about 1.4 KB allocated each, `npm run bench -- --allocations`).
  addOperationRoutes(app, services);
  addMetricsRoute(app, config.observability, metricsSourceOfThisProcess());
  // The API description is public: it names no organization, key or data.
  addOpenApiRoutes(app, routes);
  // Static and public; the page signs in with a key it sends to /v1 as a Bearer header.
  app.use(CONSOLE_PATH, consoleRouter());
  // Public: `/` points a browser to the console and the API reference, and names them to other clients.
  addServiceIndex(app);
  // Before the body parser and authentication, so their errors too take the route's shape.
  app.use(dialect);
  app.use(body);
  app.use('/v1', auth);
  app.use(mountRoutes(routes));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
