import type { Prisma, SpaceFile, SpaceFileStatus } from '../generated/prisma/client';
import type { PageQuery } from '../schemas/common';
import type { Db } from './db';
import { afterCursor, NEWEST_FIRST, unknownCursor } from './pagination';

export type SpaceFileRow = SpaceFile;

export interface NewSpaceFile {
  app_id: string;
  org_id: string;
  name: string;
  mime_type: string;
  size_bytes: number;
  sha256: string;
  status: SpaceFileStatus;
  bytes: Buffer;
}

export interface StoredBytes {
  name: string;
  mimeType: string;
  bytes: Buffer;
}

/** Space files' rows and bytes. Every read is scoped by Space, so an id of another Space finds nothing. */
export class SpaceFileRepository {
  constructor(private readonly db: Db) {}

  /** The row and its bytes together: a file is never listed without its content. */
  create({ bytes, ...row }: NewSpaceFile): Promise<SpaceFileRow> {
    return this.db.spaceFile.create({ data: { ...row, content: { create: { bytes: new Uint8Array(bytes) } } } });
  }

  find(appId: string, id: string): Promise<SpaceFileRow | null> {
    return this.db.spaceFile.findFirst({ where: { id, app_id: appId } });
  }

  async list(appId: string, query: PageQuery): Promise<SpaceFileRow[]> {
    const where: Prisma.SpaceFileWhereInput = { AND: [{ app_id: appId }] };
    if (query.after) {
      const cursor = await this.db.spaceFile.findFirst({ where: { id: query.after, app_id: appId }, select: { id: true, added_on: true } });
      if (!cursor) throw unknownCursor();
      where.AND = [{ app_id: appId }, afterCursor(cursor)];
    }
    return this.db.spaceFile.findMany({ where, orderBy: NEWEST_FIRST, take: query.limit + 1 });
  }

  /** Deletes the file, its bytes and its chunks (cascade); null when there was no such file. */
  async delete(appId: string, id: string): Promise<SpaceFileRow | null> {
    const found = await this.find(appId, id);
    if (!found) return null;
    const { count } = await this.db.spaceFile.deleteMany({ where: { id, app_id: appId } });
    return count === 1 ? found : null;
  }

  /** The Space and its sandboxes that search its files (`use_parent_custom_data`): whose snapshots a change of its files concerns. */
  async spacesReadingFilesOf(appId: string): Promise<string[]> {
    const sandboxes = await this.db.app.findMany({ where: { sandbox_of: appId, use_parent_custom_data: true }, select: { id: true } });
    return [appId, ...sandboxes.map((sandbox) => sandbox.id)];
  }

  /** Whether the Space has a file whose text is searchable (pre-selection proposes space-search only then). */
  async hasSearchable(appId: string): Promise<boolean> {
    return (await this.db.spaceFile.findFirst({ where: { app_id: appId, status: 'ready', chunk_count: { gt: 0 } }, select: { id: true } })) !== null;
  }

  async readBytes(appId: string, id: string): Promise<StoredBytes | null> {
    const row = await this.db.spaceFile.findFirst({
      where: { id, app_id: appId },
      select: { name: true, mime_type: true, content: { select: { bytes: true } } },
    });
    if (!row?.content) return null;
    return { name: row.name, mimeType: row.mime_type, bytes: Buffer.from(row.content.bytes) };
  }

  /** Claims a file for ingestion; false when it is gone (deleted meanwhile). */
  async markProcessing(id: string): Promise<boolean> {
    const { count } = await this.db.spaceFile.updateMany({ where: { id }, data: { status: 'processing', error: null } });
    return count === 1;
  }

  async markFailed(id: string, reason: string): Promise<void> {
    await this.db.spaceFile.updateMany({ where: { id }, data: { status: 'failed', error: reason.slice(0, 2000), chunk_count: 0 } });
  }
}
