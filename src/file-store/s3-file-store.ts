import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import type { FileStoreConfig } from '../config/batches';
import type { FileStore } from './file-store';

type S3StoreConfig = Extract<FileStoreConfig, { kind: 's3' }>;

/**
 * Files in an S3-compatible bucket (`FILE_STORAGE=s3`): AWS S3, MinIO, R2, ... One PutObject per file
 * with its length known (no multipart upload: a file is at most FILE_MAX_BYTES, 200 MB, well under
 * PutObject's 5 GB). Checksums only where the API requires them, since several S3-compatible stores
 * refuse the SDK's default streaming checksum trailers.
 */
export class S3FileStore implements FileStore {
  private readonly client: S3Client;

  constructor(private readonly config: S3StoreConfig) {
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.accessKeyId && config.secretAccessKey ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } : undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Readable, bytes: number): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.config.bucket, Key: this.keyOf(key), Body: body, ContentLength: bytes, ContentType: 'application/jsonl' }),
    );
  }

  async get(key: string): Promise<Readable> {
    const answer = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.keyOf(key) }));
    if (!(answer.Body instanceof Readable)) throw new Error(`S3 answered no body for ${key}`);
    return answer.Body;
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.keyOf(key) }));
  }

  close(): void {
    this.client.destroy();
  }

  private keyOf(key: string): string {
    return `${this.config.prefix}${key}`;
  }
}
