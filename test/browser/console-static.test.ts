import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { buildConsole, CONSOLE_OUTPUT, CONSOLE_SOURCE } from '../../scripts/build-console';
import { CONSOLE_CSP, consoleRouter } from '../../src/http/console';
import { createTestContext, type TestContext } from '../helpers/test-context';

/** How /console is served: headers, caching, and the built page's shape (no browser needed). */

let ctx: TestContext;
let assets: { script: string; stylesheet?: string };

beforeAll(async () => {
  assets = await buildConsole();
  ctx = createTestContext();
});
afterAll(() => ctx.close());

describe('GET /console', () => {
  it('sends /console to /console/, where the page names its assets relatively', async () => {
    const res = await request(ctx.app).get('/console');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/console/');
  });

  it('serves index.html without a key, never cached, under a strict CSP', async () => {
    const res = await request(ctx.app).get('/console/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    expect(res.text).toContain(`<script type="module" src="${assets.script}"></script>`);
  });

  it('has no inline script or style and loads nothing from another origin', () => {
    const html = readFileSync(join(CONSOLE_OUTPUT, 'index.html'), 'utf8');
    expect(html.match(/<script\b[^>]*>/g)).toEqual([`<script type="module" src="${assets.script}">`]);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(html).not.toMatch(/https?:\/\//);
    // Preact escapes every text it renders; only this prop would bypass that.
    const sourceDir = join(CONSOLE_SOURCE, 'src');
    const sources = readdirSync(sourceDir, { recursive: true, encoding: 'utf8' }).filter((file) => /\.tsx?$/.test(file));
    expect(sources.length).toBeGreaterThan(5);
    expect(sources.filter((file) => readFileSync(join(sourceDir, file), 'utf8').includes('dangerouslySetInnerHTML'))).toEqual([]);
    const bundle = readFileSync(join(CONSOLE_OUTPUT, assets.script), 'utf8');
    expect(bundle).not.toMatch(/fonts\.googleapis|cdn\.jsdelivr|unpkg\.com/);
    const css = readFileSync(join(CONSOLE_OUTPUT, assets.stylesheet ?? ''), 'utf8');
    expect(css).not.toMatch(/@import|url\(["']?https?:/);
  });

  it('caches hashed assets for a year, and answers 404 for an unknown one', async () => {
    for (const asset of [assets.script, assets.stylesheet ?? '']) {
      const res = await request(ctx.app).get(`/console/${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    }
    const missing = await request(ctx.app).get('/console/assets/app-NOPE.js');
    expect(missing.status).toBe(404);
    expect(missing.headers['cache-control']).toBeUndefined();
  });

  it('says how to build it when it is not built', async () => {
    const app = express().use('/console', consoleRouter(mkdtempSync(join(tmpdir(), 'console-'))));
    const res = await request(app).get('/console/');
    expect(res.status).toBe(503);
    expect(res.text).toContain('npm run build:console');
  });

  it('is described in the OpenAPI document with its summary endpoint', async () => {
    const res = await request(ctx.app).get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/v1/logs/summary']));
    const params = (res.body.paths['/v1/logs'].get.parameters as { name: string }[]).map((param) => param.name);
    expect(params).toEqual(expect.arrayContaining(['created_after', 'created_before', 'model', 'status']));
  });
});
