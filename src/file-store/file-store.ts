import type { Readable } from 'node:stream';

/**
 * Where the bytes of OpenAI Files live (batch inputs, outputs, errors): a seam with a local directory
 * and S3-compatible object storage behind it. Keys are opaque paths the caller chooses (`<org>/<file id>`).
 */
export interface FileStore {
  /** Stores `body` under `key`; `bytes` is its exact length (S3 needs it up front, and it is known: uploads are counted first). */
  put(key: string, body: Readable, bytes: number): Promise<void>;
  /** The stored bytes, streamed; a missing key rejects. */
  get(key: string): Promise<Readable>;
  /** Removes the bytes; a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Lets go of connections (S3's keep-alive sockets). */
  close(): void;
}
