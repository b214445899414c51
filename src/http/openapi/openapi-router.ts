import type { IRouter } from 'express';
import type { Route } from '../route';
import { buildOpenApiDocument, packageInfo, type DocumentInfo } from './build-document';
import {
  DOCS_ASSETS_PATH,
  DOCS_CONTENT_SECURITY_POLICY,
  DOCS_INIT_PATH,
  DOCS_INIT_SCRIPT,
  DOCS_PATH,
  OPENAPI_PATH,
  SWAGGER_UI_ASSETS,
  docsPageHtml,
  swaggerUiFolder,
} from './docs-page';

/** How long browsers may reuse the Swagger UI files, in seconds; they change only with the package. */
const ASSET_MAX_AGE_SECONDS = 86_400;

/**
 * `GET /v1/openapi.json` and `GET /docs`, mounted before authentication: they describe the API and
 * reveal nothing about any organization. The document is built once, here, at startup.
 */
export function addOpenApiRoutes(router: IRouter, routes: Route[], info: DocumentInfo = packageInfo()): void {
  const document = buildOpenApiDocument(routes, info);
  const serialized = JSON.stringify(document);
  const page = docsPageHtml(document.info.title);
  const assets = swaggerUiFolder();

  router.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').send(serialized);
  });
  router.get(DOCS_PATH, (_req, res) => {
    res.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY).type('html').send(page);
  });
  router.get(DOCS_INIT_PATH, (_req, res) => {
    res.type('application/javascript').send(DOCS_INIT_SCRIPT);
  });
  router.get(`${DOCS_ASSETS_PATH}/:file`, (req, res, next) => {
    const file = String(req.params.file);
    if (!SWAGGER_UI_ASSETS.has(file)) {
      next();
      return;
    }
    res.sendFile(file, { root: assets, maxAge: ASSET_MAX_AGE_SECONDS * 1000 }, (err) => {
      if (err) next(err);
    });
  });
}
