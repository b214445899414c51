import path from 'node:path';

/**
 * The `/docs` page: Swagger UI, served from the `swagger-ui-dist` package in node_modules, so it
 * works without internet access. The page loads the document from `/v1/openapi.json`.
 */

export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/v1/openapi.json';
export const DOCS_ASSETS_PATH = `${DOCS_PATH}/assets`;
export const DOCS_INIT_PATH = `${DOCS_PATH}/init.js`;

/** The only files of swagger-ui-dist the page uses; its own index.html would load the petstore example. */
export const SWAGGER_UI_ASSETS: ReadonlySet<string> = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png']);

export function swaggerUiFolder(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

/** Scripts come from files, never inline, so the page can run under a strict Content-Security-Policy. */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes from JavaScript.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function docsPageHtml(title: string): string {
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title} API reference</title>
    <link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <noscript>This page needs JavaScript. The OpenAPI document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
    <div id="swagger-ui"></div>
    <script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_INIT_PATH}"></script>
  </body>
</html>
`;
}

/** `validatorUrl: null` keeps Swagger UI from sending the document to validator.swagger.io. */
export const DOCS_INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;
