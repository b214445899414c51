import { readBatchConfig } from '../../src/config/batches';

describe('files and batches configuration', () => {
  it("defaults to a local directory and OpenAI's limits", () => {
    expect(readBatchConfig({})).toEqual({
      fileStore: { kind: 'local', dir: 'data/files' },
      fileMaxBytes: 200 * 1024 * 1024,
      maxLines: 50_000,
      completionWindowSeconds: 86_400,
      lineConcurrency: 16,
      spaceConcurrency: 8,
      coordinatorConcurrency: 16,
    });
  });

  it('reads the S3 store', () => {
    const config = readBatchConfig({
      FILE_STORAGE: 's3',
      S3_BUCKET: 'b',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'k',
      S3_SECRET_ACCESS_KEY: 's',
    });
    expect(config.fileStore).toEqual({
      kind: 's3',
      bucket: 'b',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: 'k',
      secretAccessKey: 's',
      forcePathStyle: true,
      prefix: '',
    });
  });

  it('names the variable of a bad value', () => {
    expect(() => readBatchConfig({ FILE_STORAGE: 's3' })).toThrow(/S3_BUCKET/);
    expect(() => readBatchConfig({ FILE_STORAGE: 'gcs' })).toThrow(/FILE_STORAGE/);
    expect(() => readBatchConfig({ BATCH_SPACE_CONCURRENCY: '0' })).toThrow(/BATCH_SPACE_CONCURRENCY/);
    expect(() => readBatchConfig({ S3_ENDPOINT: 'nope', FILE_STORAGE: 's3', S3_BUCKET: 'b' })).toThrow(/S3_ENDPOINT/);
  });
});
