import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FileStore } from '../../src/file-store/file-store';
import { LocalFileStore } from '../../src/file-store/local-file-store';
import { S3FileStore } from '../../src/file-store/s3-file-store';
import { startS3Simulator, type S3Simulator } from '../simulator/s3';

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

let s3: S3Simulator;
let dir: string;
const stores: Record<string, () => FileStore> = {};
const opened: FileStore[] = [];

beforeAll(async () => {
  s3 = await startS3Simulator();
  dir = await mkdtemp(join(tmpdir(), 'switchyard-files-'));
  const open = (store: FileStore) => {
    opened.push(store);
    return store;
  };
  stores.local = () => open(new LocalFileStore(dir));
  stores.s3 = () =>
    open(
      new S3FileStore({
        kind: 's3',
        bucket: s3.bucket,
        endpoint: s3.endpoint,
        region: 'us-east-1',
        accessKeyId: 'test',
        secretAccessKey: 'test-secret',
        forcePathStyle: true,
        prefix: 'files/',
      }),
    );
});
afterAll(async () => {
  for (const store of opened) store.close();
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

describe.each(['local', 's3'])('the %s file store', (kind) => {
  it('puts a stream, gets it back, deletes it', async () => {
    const store = stores[kind]?.() as FileStore;
    const body = '{"a":1}\n{"b":"é"}\n'.repeat(1000);
    await store.put('org-1/file-abc', Readable.from([Buffer.from(body)]), Buffer.byteLength(body));
    expect(await text(await store.get('org-1/file-abc'))).toBe(body);
    await store.delete('org-1/file-abc');
    await expect(store.get('org-1/file-abc')).rejects.toThrow();
    // Deleting what is gone is not an error.
    await store.delete('org-1/file-abc');
  });
});

describe('the S3 store on the wire', () => {
  it('signs its calls, sends the length up front and keeps the key under the prefix', async () => {
    const store = stores.s3?.() as FileStore;
    await store.put('org-2/file-x', Readable.from([Buffer.from('hello\n')]), 6);
    const put = s3.calls.find((call) => call.method === 'PUT' && call.key === 'files/org-2/file-x');
    expect(put?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=test\//);
    expect(put?.headers['content-length']).toBe('6');
    expect(s3.objects.get('files/org-2/file-x')?.toString()).toBe('hello\n');
  });
});
