import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { toFile } from 'openai';
import request from 'supertest';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { testBatchConfig } from '../helpers/batch-config';

/** OpenAI's Files API through the official SDK, unchanged, against Switchyard on a real port. */

let ctx: TestContext;
let server: Server;
let tenant: Tenant;
let other: Tenant;
let client: OpenAI;
let otherClient: OpenAI;

const LINE = JSON.stringify({
  custom_id: 'a',
  method: 'POST',
  url: '/v1/chat/completions',
  body: { model: 'test-echo', messages: [{ role: 'user', content: 'hi' }] },
});

beforeAll(async () => {
  ctx = createTestContext({ batches: testBatchConfig({ fileMaxBytes: 4096, maxLines: 5 }) });
  server = await new Promise<Server>((resolve) => {
    const listening = ctx.app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  tenant = await ctx.tenant();
  other = await ctx.tenant();
  client = new OpenAI({ apiKey: tenant.api_key, baseURL, maxRetries: 0 });
  otherClient = new OpenAI({ apiKey: other.api_key, baseURL, maxRetries: 0 });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await ctx.close();
});

describe('files', () => {
  it('uploads, lists, retrieves, downloads and deletes a batch input', async () => {
    const content = `${LINE}\n${LINE.replace('"a"', '"b"')}\n`;
    const created = await client.files.create({ file: await toFile(Buffer.from(content), 'input.jsonl'), purpose: 'batch' });
    expect(created).toEqual({
      id: expect.stringMatching(/^file-[0-9a-f]{24}$/),
      object: 'file',
      bytes: Buffer.byteLength(content),
      created_at: expect.any(Number),
      expires_at: null,
      filename: 'input.jsonl',
      purpose: 'batch',
      status: 'processed',
      status_details: null,
    });
    expect(Math.abs(created.created_at - Date.now() / 1000)).toBeLessThan(60);
    expect(await client.files.retrieve(created.id)).toEqual(created);
    const listed = [];
    for await (const file of client.files.list()) listed.push(file.id);
    expect(listed).toContain(created.id);
    expect(await (await client.files.content(created.id)).text()).toBe(content);
    expect(await client.files.delete(created.id)).toEqual({ id: created.id, object: 'file', deleted: true });
    await expect(client.files.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('pages with after, limit and order, and filters by purpose', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await client.files.create({ file: await toFile(Buffer.from(LINE), `p${i}.jsonl`), purpose: 'batch' })).id);
    const first = await client.files.list({ limit: 2, order: 'asc' });
    const firstIds = first.data.map((f) => f.id);
    expect(first.has_more).toBe(true);
    const next = await client.files.list({ limit: 2, order: 'asc', after: firstIds[1] });
    const all = [...firstIds, ...next.data.map((f) => f.id)];
    expect(all.filter((id) => ids.includes(id))).toEqual(ids);
    expect((await client.files.list({ purpose: 'batch_output' })).data).toEqual([]);
  });

  it("answers 404 for another organization's file, on every method", async () => {
    const mine = await client.files.create({ file: await toFile(Buffer.from(LINE), 'mine.jsonl'), purpose: 'batch' });
    await expect(otherClient.files.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(otherClient.files.content(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(otherClient.files.delete(mine.id)).rejects.toMatchObject({ status: 404 });
    const theirs = [];
    for await (const file of otherClient.files.list()) theirs.push(file.id);
    expect(theirs).not.toContain(mine.id);
    expect((await client.files.retrieve(mine.id)).id).toBe(mine.id);
  });

  it('refuses other purposes, non-JSONL names, too many lines (400) and too many bytes (413)', async () => {
    const purpose = await request(ctx.app).post('/v1/files').set(tenant.auth).field('purpose', 'assistants').attach('file', Buffer.from(LINE), 'a.jsonl');
    expect(purpose.status).toBe(400);
    expect(purpose.body.error).toMatchObject({ param: 'purpose', code: 'invalid_value' });
    const missing = await request(ctx.app).post('/v1/files').set(tenant.auth).attach('file', Buffer.from(LINE), 'a.jsonl');
    expect(missing.body.error).toMatchObject({ param: 'purpose', code: 'missing_field' });
    const name = await request(ctx.app).post('/v1/files').set(tenant.auth).field('purpose', 'batch').attach('file', Buffer.from(LINE), 'a.txt');
    expect(name.body.error).toMatchObject({ param: 'file' });
    const lines = await request(ctx.app)
      .post('/v1/files')
      .set(tenant.auth)
      .field('purpose', 'batch')
      .attach('file', Buffer.from('{}\n'.repeat(6)), 'a.jsonl');
    expect(lines.status).toBe(400);
    expect(lines.body.error.message).toMatch(/at most 5 requests/);
    await expect(client.files.create({ file: await toFile(Buffer.alloc(5000, 'x'), 'big.jsonl'), purpose: 'batch' })).rejects.toMatchObject({ status: 413 });
  });
});

describe('the API description', () => {
  it('lists the Files and Batches endpoints', async () => {
    const doc = await request(ctx.app).get('/v1/openapi.json').expect(200);
    const paths = doc.body.paths as Record<string, Record<string, { operationId: string }>>;
    expect(paths['/v1/files']?.post?.operationId).toBe('createFile');
    expect(paths['/v1/files']?.get?.operationId).toBe('listFiles');
    expect(paths['/v1/files/{file_id}']?.delete?.operationId).toBe('deleteFile');
    expect(paths['/v1/files/{file_id}/content']?.get?.operationId).toBe('downloadFile');
    expect(paths['/v1/batches']?.post?.operationId).toBe('createBatch');
    expect(paths['/v1/batches/{batch_id}/cancel']?.post?.operationId).toBe('cancelBatch');
  });
});
