import type { IRouter, Response } from 'express';
import { CONSOLE_PATH } from './console';
import { DOCS_PATH, OPENAPI_PATH } from './openapi/docs-page';

/** Where a newcomer goes from `/`: the web console, the API reference and its OpenAPI document. */
export const SERVICE_INDEX = {
  object: 'service',
  name: 'Switchyard',
  console: `${CONSOLE_PATH}/`,
  docs: DOCS_PATH,
  openapi: OPENAPI_PATH,
  api: '/v1',
  health: '/healthz',
} as const;

/** A page with links only: no script, no style, nothing loaded. */
const INDEX_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Switchyard</title></head>
<body>
<h1>Switchyard</h1>
<p>A model-routing API. This address serves the API under <code>/v1</code>.</p>
<ul>
<li><a href="${SERVICE_INDEX.console}">Web console</a>: sign in with an API key (<code>sy-…</code>).</li>
<li><a href="${SERVICE_INDEX.docs}">API reference</a> (and its <a href="${SERVICE_INDEX.openapi}">OpenAPI document</a>).</li>
</ul>
</body>
</html>
`;

function sendPage(res: Response): void {
  res.set('Content-Security-Policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  res.set('X-Content-Type-Options', 'nosniff');
  res.type('html').send(INDEX_PAGE);
}

/**
 * `GET /`, public like `/docs`: a browser (one that prefers HTML) gets a page linking the console and the
 * API reference, any other client a JSON object naming them. Both answer 200.
 */
export function addServiceIndex(router: IRouter): void {
  router.get('/', (req, res) => {
    res.vary('Accept');
    if (req.accepts(['json', 'html']) === 'html') sendPage(res);
    else res.json(SERVICE_INDEX);
  });
}
