import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'bullmq';
import OpenAI, { toFile } from 'openai';
import request from 'supertest';
import { QUEUE_NAMES } from '../../src/queue/names';
import { makeDocx, makePdf, makeWav } from '../fixtures/space-files/make-documents';
import { eventually } from '../helpers/completion-fixtures';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { spaceFilesProcessor } from '../../workers/space-files';

// Read by the space-search configuration when the services are built: a small limit for the 413 case,
// and no embeddings (this file is about storage and ingestion; space-search.test.ts covers vectors).
process.env.SPACE_FILE_MAX_BYTES = String(64 * 1024);
process.env.EMBEDDINGS_MODEL = 'none';

let ctx: TestContext;
let alice: Tenant;
let bob: Tenant;
let worker: Worker;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  ctx = createTestContext();
  [alice, bob] = await Promise.all([ctx.tenant(), ctx.tenant()]);
  // BullMQ's connection, as the service's workers use (not the service's own, whose commands time out).
  worker = new Worker(QUEUE_NAMES.spaceFiles, spaceFilesProcessor(ctx.services), {
    connection: ctx.services.queueConnection,
    prefix: ctx.services.config.redisPrefix,
  });
});
afterAll(async () => {
  await worker.close();
  await ctx.close();
});

const filesOf = (tenant: Tenant, appId = tenant.app_id) => `/v1/apps/${appId}/files`;

function upload(tenant: Tenant, { name, bytes }: { name: string; bytes: Buffer | string }) {
  return request(ctx.app).post(filesOf(tenant)).set(tenant.auth).attach('file', Buffer.from(bytes), name);
}

interface FileBody {
  id: string;
  status: string;
  chunk_count: number;
  error: string | null;
  mime_type: string;
}

/** Polls the file until ingestion is over (ready or failed). */
function settled(tenant: Tenant, id: string): Promise<FileBody> {
  return eventually(async () => {
    const res = await request(ctx.app)
      .get(`${filesOf(tenant)}/${id}`)
      .set(tenant.auth);
    const body = res.body as FileBody;
    return body.status === 'ready' || body.status === 'failed' ? body : null;
  });
}

async function chunksOf(fileId: string): Promise<string[]> {
  const rows = await ctx.services.db.spaceFileChunk.findMany({ where: { file_id: fileId }, orderBy: { position: 'asc' }, select: { text: true } });
  return rows.map((row) => row.text);
}

describe('POST /v1/apps/{app_id}/files', () => {
  it('stores the file and answers 201 with it, queued for ingestion', async () => {
    const res = await upload(alice, { name: 'notes.txt', bytes: 'The lighthouse keeper logs every passing ship.' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      object: 'space.file',
      app_id: alice.app_id,
      name: 'notes.txt',
      mime_type: 'text/plain',
      size_bytes: 46,
      sha256: createHash('sha256').update('The lighthouse keeper logs every passing ship.').digest('hex'),
      status: 'queued',
      error: null,
      chunk_count: 0,
      added_on: expect.any(String),
      modified_on: expect.any(String),
    });
    const done = await settled(alice, (res.body as FileBody).id);
    expect(done).toMatchObject({ status: 'ready', chunk_count: 1, error: null });
    expect(await chunksOf(done.id)).toEqual(['The lighthouse keeper logs every passing ship.']);
  });

  it('answers 413 for a file over SPACE_FILE_MAX_BYTES', async () => {
    const res = await upload(alice, { name: 'big.txt', bytes: 'x'.repeat(64 * 1024 + 1) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: { message: 'The file is larger than the 65536 bytes allowed.', type: 'invalid_request_error', code: 'payload_too_large', param: 'file' },
    });
  });

  it.each([
    ['an extension not accepted', 'tool.exe', Buffer.from('MZ binary')],
    ['content that is not what the extension says', 'fake.pdf', Buffer.from('just text, not a PDF')],
    ['binary content named as text', 'data.txt', Buffer.from([0x00, 0x01, 0x02, 0xff])],
    ['a ZIP that is not a Word document', 'archive.docx', Buffer.from('PK\x03\x04 not word', 'latin1')],
  ])('answers 415 for %s', async (_why, name, bytes) => {
    const res = await upload(alice, { name, bytes });
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: 'unsupported_media_type', param: 'file' });
  });

  it('answers 415 for a JSON body, and 400 for a form without the file', async () => {
    const json = await request(ctx.app).post(filesOf(alice)).set(alice.auth).send({ file: 'x' });
    expect(json.status).toBe(415);
    expect(json.body.error).toMatchObject({ code: 'unsupported_media_type', param: 'Content-Type' });
    const empty = await request(ctx.app).post(filesOf(alice)).set(alice.auth).field('purpose', 'assistants');
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ code: 'missing_field', param: 'file' });
  });

  it('accepts the purpose field of OpenAI SDK uploads and keeps only the base name', async () => {
    const res = await request(ctx.app)
      .post(filesOf(alice))
      .set(alice.auth)
      .field('purpose', 'assistants')
      .attach('file', Buffer.from('# Title\n\nBody'), 'C:\\docs\\readme.md');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'readme.md', mime_type: 'text/markdown' });
  });

  it("takes uploads from OpenAI's SDK (files.create) pointed at the Space", async () => {
    const server = await new Promise<Server>((resolve) => {
      const listening = ctx.app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    try {
      const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/apps/${alice.app_id}`;
      const client = new OpenAI({ apiKey: alice.api_key, baseURL, maxRetries: 0 });
      const created = await client.files.create({ file: await toFile(Buffer.from('Pilots board at the outer buoy.'), 'pilots.txt'), purpose: 'assistants' });
      expect(created).toMatchObject({ object: 'space.file', name: 'pilots.txt', status: 'queued' });
      expect(await settled(alice, created.id)).toMatchObject({ status: 'ready', chunk_count: 1 });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("answers 404 for another organization's Space, whatever the body", async () => {
    const res = await request(ctx.app).post(filesOf(bob, alice.app_id)).set(bob.auth).attach('file', Buffer.from('hello'), 'a.txt');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { message: 'Space not found', type: 'not_found_error', code: 'not_found', param: 'app_id' } });
  });
});

describe('ingestion of each type', () => {
  const cases: [name: string, bytes: Buffer | string, mimeType: string, expected: string][] = [
    ['guide.md', '# Ferries\n\nThe morning ferry leaves at seven.', 'text/markdown', 'The morning ferry leaves at seven.'],
    [
      'page.html',
      '<html><head><style>p{}</style></head><body><h1>Harbour</h1><p>Tides are <b>high</b> at noon.</p><script>var x;</script></body></html>',
      'text/html',
      'Tides are high at noon.',
    ],
    ['ships.csv', 'name,tonnage\nAurora,1200\nBorealis,900\n', 'text/csv', 'Borealis,900'],
    ['config.json', '{"harbour": "Kirkwall", "berths": 12}', 'application/json', '"Kirkwall"'],
    ['manual.pdf', makePdf(['Safety manual for the harbour crane.', 'Inspect the cables weekly.']), 'application/pdf', 'Inspect the cables weekly.'],
    [
      'report.docx',
      makeDocx(['Annual report of the harbour board.', 'Revenue rose by a tenth.']),
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'Revenue rose by a tenth.',
    ],
  ];

  it.each(cases)('%s is extracted, chunked and indexed', async (...[name, bytes, mimeType, expected]) => {
    const res = await upload(alice, { name, bytes });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ mime_type: mimeType, status: 'queued' });
    const done = await settled(alice, (res.body as FileBody).id);
    expect(done).toMatchObject({ status: 'ready', error: null });
    expect(done.chunk_count).toBeGreaterThan(0);
    expect((await chunksOf(done.id)).join('\n')).toContain(expected);
    if (name.endsWith('.html')) expect((await chunksOf(done.id)).join('\n')).not.toMatch(/var x|p\{\}/);
  });

  it('stores audio for transcribe-audio without indexing it: ready at once, no chunks', async () => {
    const res = await upload(alice, { name: 'memo.wav', bytes: makeWav() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ mime_type: 'audio/wav', status: 'ready', chunk_count: 0 });
    const job = await ctx.services.queues.spaceFiles.getJob((res.body as FileBody).id);
    expect(job).toBeUndefined();
  });

  it('marks a file that cannot be read failed, with the reason', async () => {
    const res = await upload(alice, { name: 'broken.pdf', bytes: Buffer.from('%PDF-1.4\nnot really a pdf') });
    const done = await settled(alice, (res.body as FileBody).id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/^Text extraction failed: the PDF could not be read/);
  });

  it('marks invalid JSON failed', async () => {
    const res = await upload(alice, { name: 'bad.json', bytes: '{"open": ' });
    const done = await settled(alice, (res.body as FileBody).id);
    expect(done).toMatchObject({ status: 'failed', chunk_count: 0 });
  });

  it('keeps job data to ids (no file text in Redis)', async () => {
    const res = await upload(alice, { name: 'secret.txt', bytes: 'the vault code is 4711' });
    const job = await ctx.services.queues.spaceFiles.getJob((res.body as FileBody).id);
    expect(job?.data).toEqual({ fileId: (res.body as FileBody).id, appId: alice.app_id });
    await settled(alice, (res.body as FileBody).id);
  });
});

describe('list, get and delete', () => {
  let tenant: Tenant;
  const ids: string[] = [];
  beforeAll(async () => {
    tenant = await ctx.tenant();
    for (const name of ['a.txt', 'b.txt', 'c.txt']) {
      const res = await upload(tenant, { name, bytes: `file ${name}` });
      ids.push((res.body as FileBody).id);
    }
    await Promise.all(ids.map((id) => settled(tenant, id)));
  });

  it('lists newest first, in pages', async () => {
    const first = await request(ctx.app)
      .get(`${filesOf(tenant)}?limit=2`)
      .set(tenant.auth);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(first.body.data.map((f: { name: string }) => f.name)).toEqual(['c.txt', 'b.txt']);
    const second = await request(ctx.app)
      .get(`${filesOf(tenant)}?limit=2&after=${first.body.last_id}`)
      .set(tenant.auth);
    expect(second.body).toMatchObject({ has_more: false, data: [{ name: 'a.txt', status: 'ready' }] });
  });

  it("answers 404 for another organization's Space or file", async () => {
    expect((await request(ctx.app).get(filesOf(tenant)).set(bob.auth)).status).toBe(404);
    const viaOwnSpace = await request(ctx.app)
      .get(`${filesOf(bob)}/${ids[0]}`)
      .set(bob.auth);
    expect(viaOwnSpace.status).toBe(404);
    expect(viaOwnSpace.body.error).toMatchObject({ code: 'not_found', param: 'file_id' });
    expect(
      (
        await request(ctx.app)
          .delete(`${filesOf(bob)}/${ids[0]}`)
          .set(bob.auth)
      ).status,
    ).toBe(404);
    expect(
      (
        await request(ctx.app)
          .get(`${filesOf(tenant)}/${UNKNOWN_ID}`)
          .set(tenant.auth)
      ).status,
    ).toBe(404);
  });

  it('deletes a file with its bytes and chunks', async () => {
    const id = ids[0] as string;
    expect(await chunksOf(id)).toHaveLength(1);
    const res = await request(ctx.app)
      .delete(`${filesOf(tenant)}/${id}`)
      .set(tenant.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, object: 'space.file', deleted: true });
    expect(await chunksOf(id)).toEqual([]);
    expect(await ctx.services.db.spaceFileContent.count({ where: { file_id: id } })).toBe(0);
    expect(
      (
        await request(ctx.app)
          .get(`${filesOf(tenant)}/${id}`)
          .set(tenant.auth)
      ).status,
    ).toBe(404);
  });

  it("deleting the Space deletes its files' rows", async () => {
    const id = ids[1] as string;
    await ctx.services.db.app.delete({ where: { id: tenant.app_id } });
    expect(await ctx.services.db.spaceFile.count({ where: { id } })).toBe(0);
    expect(await ctx.services.db.spaceFileContent.count({ where: { file_id: id } })).toBe(0);
    expect(await chunksOf(id)).toEqual([]);
  });
});

describe("the Space's configuration stamp (completions ask once per Space snapshot whether there is anything to search)", () => {
  it('changes when a file becomes searchable or is deleted, for the Space and the sandboxes that search its files', async () => {
    const [owner, reader, stranger] = await Promise.all([ctx.tenant(), ctx.tenant(), ctx.tenant()]);
    // The row a sandbox sync leaves: the owner's sandbox searches its parent's files. The stranger is another Space.
    await ctx.services.db.app.update({ where: { id: reader.app_id }, data: { sandbox_of: owner.app_id, use_parent_custom_data: true } });
    const stamps = () => Promise.all([owner, reader, stranger].map((tenant) => ctx.services.spaceVersions.read(tenant.app_id)));
    const before = await stamps();
    const uploaded = await upload(owner, { name: 'notes.txt', bytes: 'The lighthouse keeper logs the weather.' });
    expect((await settled(owner, uploaded.body.id)).status).toBe('ready');
    const ready = await stamps();
    expect([ready[0] !== before[0], ready[1] !== before[1], ready[2] === before[2]]).toEqual([true, true, true]);
    await request(ctx.app)
      .delete(`${filesOf(owner)}/${uploaded.body.id}`)
      .set(owner.auth)
      .expect(200);
    const deleted = await stamps();
    expect([deleted[0] !== ready[0], deleted[1] !== ready[1], deleted[2] === ready[2]]).toEqual([true, true, true]);
  });
});
