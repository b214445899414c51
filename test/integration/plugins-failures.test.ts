import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { silentWav } from '../fixtures/audio';
import { complete, logsOf, userMessage } from '../helpers/completion-fixtures';
import { pluginReports, pluginSpace, upstreamBodies, usePluginHarness } from '../helpers/plugin-harness';

/** Plugins that are slow, fail or are refused, through the whole pipeline. */
const env = usePluginHarness({ pluginTimeoutMs: 1500 });
const BACKEND_MS = 500;

function pluginChildren<T extends { payload: unknown }>(children: T[]): T[] {
  return children.filter((child) => (child.payload as { step?: string }).step === 'plugin');
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe('plugins run concurrently', () => {
  it('takes about as long as the slowest plugin, not the sum of three', async () => {
    const { tenant } = await pluginSpace(env);
    const audio = env.media.serve('clip.wav', { contentType: 'audio/wav', bytes: silentWav() });
    const ask = (plugins: string[], text: string) =>
      complete(env.h, tenant, { plugins, files: plugins.includes('transcribe-audio') ? [audio] : undefined, messages: userMessage(text) });
    await ask(['web-search'], 'warm up the worker');

    env.searx.faults.push({ kind: 'delay', ms: BACKEND_MS });
    const single = await timed(() => ask(['web-search'], 'one slow search'));
    expect(single.value.status).toBe(200);

    env.searx.faults.push({ kind: 'delay', ms: BACKEND_MS });
    env.media.images.push({ kind: 'delay', ms: BACKEND_MS });
    env.media.transcriptions.push({ kind: 'delay', ms: BACKEND_MS });
    const three = await timed(() => ask(['web-search', 'image-generation-generic', 'transcribe-audio'], 'three slow plugins'));
    expect(three.value.status).toBe(200);
    expect(pluginReports(three.value.body).map((p) => [p.id, p.status])).toEqual([
      ['web-search', 'ok'],
      ['image-generation-generic', 'ok'],
      ['transcribe-audio', 'ok'],
    ]);
    expect(single.ms).toBeGreaterThanOrEqual(BACKEND_MS);
    expect(three.ms).toBeLessThan(2 * single.ms);
  });
});

describe('a plugin that fails does not fail the request', () => {
  it.each([
    ['answers 503', { kind: 'status' as const, status: 503 }],
    ['never answers', { kind: 'timeout' as const }],
  ])('web-search whose backend %s: 200, metadata.error names it, and a failed child log', async (_name, fault) => {
    const { tenant } = await pluginSpace(env);
    env.searx.faults.push(fault, fault, fault);
    const res = await complete(env.h, tenant, { plugins: ['web-search'], messages: userMessage('Weather in Lisbon') });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe('Echo: Weather in Lisbon');
    expect(res.body.metadata.error).toContain('web-search');
    expect(res.body.metadata.search_results.items).toEqual([]);
    expect(pluginReports(res.body)).toEqual([expect.objectContaining({ id: 'web-search', status: 'failed', error: expect.stringContaining('web-search') })]);

    const { parent, children } = await logsOf(env.h, res.body.id as string);
    expect(parent.status_code).toBe(200);
    const [child] = pluginChildren(children);
    expect(child?.status_code).toBe(fault.kind === 'timeout' ? 504 : 503);
    expect(child).toMatchObject({ namespace: 'web-search', costs_incurred: false, response: { error: expect.objectContaining({ kind: expect.any(String) }) } });
  });
});

describe('SSRF through the pipeline', () => {
  let canary: Server;
  let hits = 0;
  beforeAll(async () => {
    canary = createServer((_req, res) => {
      hits += 1;
      res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(Buffer.alloc(16));
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => canary.close(() => resolve())));

  it('never fetches a loopback file URL that is not allowed, and says why', async () => {
    const { tenant } = await pluginSpace(env);
    const url = `http://127.0.0.1:${(canary.address() as AddressInfo).port}/a.mp3`;
    const res = await complete(env.h, tenant, { plugins: ['transcribe-audio'], files: [url], messages: userMessage('Transcribe this') });
    expect(hits).toBe(0);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_value', param: 'files[0]' });
    expect(env.media.requests.filter((r) => r.path.includes('transcriptions') && r.file?.name === 'a.mp3')).toHaveLength(0);
  });
});

describe("a file id of another organization's Space", () => {
  it('transcribe-audio answers 404 naming files[0], exactly as for an unknown id, and calls no model', async () => {
    const owner = await pluginSpace(env);
    const stranger = await pluginSpace(env);
    const upload = await request(env.h.app)
      .post(`/v1/apps/${owner.tenant.app_id}/files`)
      .set(owner.tenant.auth)
      .attach('file', silentWav(), 'foreign-clip.wav');
    expect(upload.status).toBe(201);
    const ask = (fileId: string) =>
      complete(env.h, stranger.tenant, { plugins: ['transcribe-audio'], files: [fileId], messages: userMessage('Transcribe this') });
    const foreign = await ask(upload.body.id as string);
    const unknown = await ask(randomUUID());
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'not_found', param: 'files[0]' });
    expect(unknown.status).toBe(404);
    expect(foreign.body.error.message.replace(upload.body.id as string, 'ID')).toBe(unknown.body.error.message.replace(/[0-9a-f-]{36}/, 'ID'));
    expect(upstreamBodies(env, stranger.models.answering)).toHaveLength(0);
    const { parent } = await logsOf(env.h, foreign.headers['x-switchyard-log-id'] as string);
    expect(parent.status_code).toBe(404);
    expect(env.media.requests.filter((r) => r.path.includes('transcriptions') && r.file?.name === 'foreign-clip.wav')).toHaveLength(0);
  });
});
