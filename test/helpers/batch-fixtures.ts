import type { Express } from 'express';
import type OpenAI from 'openai';
import { toFile } from 'openai';
import request from 'supertest';
import type { Batch } from 'openai/resources/batches';
import { sleep } from './completion-fixtures';
import type { Tenant } from './test-context';

/** One request line of a batch input file. */
export function batchLine(customId: string, body: Record<string, unknown>, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body, ...overrides });
}

export function chatBody(model: string, content: string): Record<string, unknown> {
  return { model, messages: [{ role: 'user', content }] };
}

/** Uploads JSONL through the API (supertest) and returns the file id. */
export async function uploadInput(app: Express, tenant: Tenant, lines: string[]): Promise<string> {
  const res = await request(app)
    .post('/v1/files')
    .set(tenant.auth)
    .field('purpose', 'batch')
    .attach('file', Buffer.from(`${lines.join('\n')}\n`), 'input.jsonl');
  if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${JSON.stringify(res.body)}`);
  return (res.body as { id: string }).id;
}

export async function createBatch(app: Express, tenant: Tenant, inputFileId: string): Promise<Batch> {
  const res = await request(app)
    .post('/v1/batches')
    .set(tenant.auth)
    .send({ input_file_id: inputFileId, endpoint: '/v1/chat/completions', completion_window: '24h' });
  if (res.status !== 200) throw new Error(`batch create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as Batch;
}

export async function readBatch(app: Express, tenant: Tenant, id: string): Promise<Batch> {
  return (await request(app).get(`/v1/batches/${id}`).set(tenant.auth).expect(200)).body as Batch;
}

const FINAL = ['completed', 'failed', 'expired', 'cancelled'];

/** Polls until the batch reaches `statuses` (any final status by default). */
export async function waitForBatch(
  read: () => Promise<Batch>,
  { statuses = FINAL, timeoutMs = 30_000 }: { statuses?: string[]; timeoutMs?: number } = {},
): Promise<Batch> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = await read();
    if (statuses.includes(batch.status)) return batch;
    if (Date.now() > deadline) throw new Error(`batch ${batch.id} still ${batch.status} after ${timeoutMs} ms (${JSON.stringify(batch.request_counts)})`);
    await sleep(100);
  }
}

/** A file's JSONL, parsed line by line. */
export async function fileLines(app: Express, tenant: Tenant, fileId: string | null | undefined): Promise<Record<string, unknown>[]> {
  if (!fileId) return [];
  const res = await request(app)
    .get(`/v1/files/${fileId}/content`)
    .set(tenant.auth)
    .buffer(true)
    .parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
    });
  return String(res.body)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export async function sdkUpload(client: OpenAI, lines: string[]): Promise<string> {
  return (await client.files.create({ file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'batch.jsonl'), purpose: 'batch' })).id;
}
