import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { ERROR_CODES } from '../../src/errors/error-codes';
import type { OpenApiDocument } from '../../src/http/openapi/openapi-types';
import { allRoutes } from '../../src/http/routes/index';
import { createTestContext, type TestContext } from '../helpers/test-context';
import { unresolvedRefs, validateOpenApi } from '../unit/openapi-checks';

let ctx: TestContext;
let document: OpenApiDocument;

beforeAll(async () => {
  ctx = createTestContext();
  const res = await request(ctx.app).get('/v1/openapi.json');
  expect(res.status).toBe(200);
  document = res.body as OpenApiDocument;
});
afterAll(() => ctx.close());

describe('GET /v1/openapi.json', () => {
  it('answers JSON without a key, even when a wrong key is sent', async () => {
    const res = await request(ctx.app).get('/v1/openapi.json').set('Authorization', 'Bearer not-a-key');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
  });

  it('is a valid OpenAPI 3.1 document whose every $ref resolves', () => {
    const packageJson = JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string };
    expect(document.info).toMatchObject({ title: 'Switchyard', version: packageJson.version });
    expect(document.servers).toEqual([{ url: '/', description: 'This server' }]);
    expect(unresolvedRefs(document)).toEqual([]);
    const validation = validateOpenApi(document);
    expect(validation.output).toContain('"valid": true');
  });

  it('lists every mounted route with its method, operation id, tags and permission', () => {
    const routes = allRoutes(ctx.services);
    expect(routes.length).toBeGreaterThan(0);
    for (const { meta } of routes) {
      const op = document.paths[meta.path]?.[meta.method];
      expect({ route: `${meta.method} ${meta.path}`, operationId: op?.operationId, tags: op?.tags }).toEqual({
        route: `${meta.method} ${meta.path}`,
        operationId: meta.operationId,
        tags: meta.tags,
      });
      expect(op?.['x-permission']).toBe(meta.permission ?? undefined);
      expect(op?.security).toEqual([{ bearerAuth: [] }]);
      expect(Object.keys(op?.responses ?? {})).toContain(String(meta.status));
    }
    const documented = Object.values(document.paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
    expect(documented).toBe(routes.length);
  });

  it('has the prompt endpoints of the spec', () => {
    expect(document.paths['/v1/prompts']?.put?.operationId).toBe('updatePrompt');
    expect(document.paths['/v1/internal/prompts']?.post?.operationId).toBe('createPublicPrompt');
    expect(document.paths['/v1/prompts']?.put?.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/PromptUpdate' } } },
    });
    expect(document.paths['/v1/internal/prompts']?.post?.responses['201']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Prompt' } } },
    });
  });

  it('carries the prompt limits of the spec', () => {
    const update = document.components.schemas.PromptUpdate as { required: string[]; properties: Record<string, object> };
    expect(update.required).toEqual(['id', 'prompt', 'title', 'description']);
    expect(update.properties.title).toEqual({ type: 'string', minLength: 1, maxLength: 60 });
    expect(update.properties.description).toEqual({ type: 'string', minLength: 1, maxLength: 200 });
    expect(document.components.schemas.Prompt).toMatchObject({ properties: { decline_reason: { type: ['string', 'null'] } } });
  });

  it('answers malformed path ids with 404 and documents every error code', () => {
    expect(Object.keys(document.paths['/v1/prompts/{prompt_id}']?.get?.responses ?? {})).toContain('404');
    expect(document.components.schemas.Error).toMatchObject({
      properties: { error: { properties: { code: { enum: Object.keys(ERROR_CODES) } } } },
    });
  });
});

describe('GET /docs', () => {
  it('answers an HTML page without a key that loads the document and local assets only', async () => {
    const res = await request(ctx.app).get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.text).toContain('<script src="/docs/assets/swagger-ui-bundle.js"></script>');
    expect(res.text).not.toMatch(/(src|href)="https?:/);
    const init = await request(ctx.app).get('/docs/init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('"/v1/openapi.json"');
    expect(init.text).toContain('validatorUrl: null');
  });

  it('serves the Swagger UI files from node_modules', async () => {
    const script = await request(ctx.app).get('/docs/assets/swagger-ui-bundle.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    const css = await request(ctx.app).get('/docs/assets/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
  });

  it('answers 404 for any other file', async () => {
    const res = await request(ctx.app).get('/docs/assets/index.html');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { message: 'No route for GET /docs/assets/index.html.', type: 'not_found_error', code: 'not_found', param: null } });
  });
});

describe('the API itself', () => {
  it('still needs a key', async () => {
    const res = await request(ctx.app).get('/v1/prompts');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('missing_api_key');
  });
});
