import { randomBytes } from 'node:crypto';

/** OpenAI-looking ids: a prefix and 24 hex digits (96 random bits). */
export function newFileId(): string {
  return `file-${randomBytes(12).toString('hex')}`;
}

export function newBatchId(): string {
  return `batch_${randomBytes(12).toString('hex')}`;
}

/** Where a file's bytes are kept in the file store: under its organization. */
export function storageKeyOf(orgId: string, fileId: string): string {
  return `${orgId}/${fileId}`;
}
