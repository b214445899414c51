import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileStore } from './file-store';

/** Files in a directory of the local disk (`FILE_STORAGE=local`): one machine, or a shared volume. */
export class LocalFileStore implements FileStore {
  private readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  async put(key: string, body: Readable): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    // Written aside and renamed, so a reader never sees half a file.
    const partial = `${target}.${randomUUID()}.partial`;
    try {
      await pipeline(body, createWriteStream(partial));
      await rename(partial, target);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Readable> {
    const stream = createReadStream(this.pathOf(key));
    // Opening errors (ENOENT) surface here rather than mid-response.
    await new Promise<void>((resolveOpen, reject) => {
      stream.once('open', () => resolveOpen());
      stream.once('error', reject);
    });
    return stream;
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  close(): void {
    // Nothing held open between calls.
  }

  /** Keys are ours, but a key that would leave the directory is refused all the same. */
  private pathOf(key: string): string {
    const path = resolve(join(this.root, key));
    if (!path.startsWith(this.root + sep)) throw new Error(`file key outside the storage directory: ${key}`);
    return path;
  }
}
