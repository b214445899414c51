import type { FileStoreConfig } from '../config/batches';
import type { FileStore } from './file-store';
import { LocalFileStore } from './local-file-store';
import { S3FileStore } from './s3-file-store';

/** The store the configuration picks (`FILE_STORAGE`). */
export function createFileStore(config: FileStoreConfig): FileStore {
  return config.kind === 's3' ? new S3FileStore(config) : new LocalFileStore(config.dir);
}
