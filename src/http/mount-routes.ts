import { Router } from 'express';
import { ApiError } from '../errors/api-error';
import { keepUndecodablePathLiteral } from './middleware/undecodable-path';
import { toExpressPath, type Route } from './route';

/** Mounts the routes and answers 405 for a known path with another method. */
export function mountRoutes(routes: Route[]): Router {
  const router = Router();
  router.use(keepUndecodablePathLiteral);
  const methodsByPath = new Map<string, string[]>();
  for (const { meta, handler } of routes) {
    const path = toExpressPath(meta.path);
    router[meta.method](path, handler);
    // Express matches with or without a trailing slash, so `/x` and `/x/` are one resource.
    const resource = path.replace(/\/$/, '');
    methodsByPath.set(resource, [...(methodsByPath.get(resource) ?? []), meta.method.toUpperCase()]);
  }
  for (const [path, methods] of methodsByPath) {
    router.all(path, (req, res) => {
      res.set('Allow', methods.join(', '));
      throw new ApiError('method_not_allowed', `${req.method} is not allowed here; use ${methods.join(' or ')}.`);
    });
  }
  return router;
}
