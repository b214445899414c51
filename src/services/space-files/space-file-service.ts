import { createHash } from 'node:crypto';
import type { AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import type { SpaceFileJob } from '../../queue/payloads';
import type { Page, PageQuery } from '../../schemas/common';
import type { SpaceFileView } from '../../schemas/space-files';
import { findSpaceRef, type SpaceRef } from '../../store/assistants';
import type { Db } from '../../store/db';
import { toPage } from '../../store/pagination';
import type { SpaceFileRepository, SpaceFileRow } from '../../store/space-files';
import { requireVisibleSpace } from '../assistants/space-access';
import { ACCEPTED_EXTENSIONS, recognise } from './file-types';
import { presentSpaceFile } from './present-space-file';
import { searchableFilesChanged } from './searchable-files-changed';
import type { SpaceVersions } from '../../cache/space-versions';

export interface SpaceFileServiceDeps {
  db: Db;
  files: SpaceFileRepository;
  /** Queues ingestion of a stored file. */
  enqueue(job: SpaceFileJob): Promise<void>;
  /** Largest upload, in bytes. */
  maxFileBytes: number;
  versions: Pick<SpaceVersions, 'bump'>;
}

/** Reads the upload once the Space is known to exist, so an unknown Space answers 404 whatever the body. */
export type ReadUpload = (maxBytes: number) => Promise<{ name: string; bytes: Buffer }>;

function unsupportedType(name: string): ApiError {
  return new ApiError(
    'unsupported_media_type',
    `'${name}' is not an accepted file: the extension must be one of ${ACCEPTED_EXTENSIONS.join(', ')} and the content must be of that type.`,
    'file',
  );
}

function orNotFound(row: SpaceFileRow | null): SpaceFileRow {
  if (!row) throw ApiError.notFound('File', 'file_id');
  return row;
}

/** A Space's files: upload (stored, then ingested on the `space-files` queue), list, read, delete. */
export class SpaceFileService {
  constructor(private readonly deps: SpaceFileServiceDeps) {}

  async upload(auth: AuthContext, appId: string, readUpload: ReadUpload): Promise<SpaceFileView> {
    const space = await this.space(auth, appId);
    const { name, bytes } = await readUpload(this.deps.maxFileBytes);
    const type = recognise(name, bytes);
    if (!type) throw unsupportedType(name);
    const row = await this.deps.files.create({
      app_id: space.id,
      org_id: space.org_id,
      name,
      mime_type: type.mimeType,
      size_bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      // Audio is kept for transcribe-audio as it is: nothing to index.
      status: type.indexed ? 'queued' : 'ready',
      bytes,
    });
    if (type.indexed) await this.enqueueOrForget(row);
    return presentSpaceFile(row);
  }

  async list(auth: AuthContext, appId: string, query: PageQuery): Promise<Page<SpaceFileView>> {
    const space = await this.space(auth, appId);
    return toPage(await this.deps.files.list(space.id, query), query, presentSpaceFile);
  }

  async get(auth: AuthContext, appId: string, fileId: string): Promise<SpaceFileView> {
    const space = await this.space(auth, appId);
    return presentSpaceFile(orNotFound(await this.deps.files.find(space.id, fileId)));
  }

  /** Deletes the file with its bytes and chunks; an ingestion still queued finds nothing and stops. */
  async delete(auth: AuthContext, appId: string, fileId: string): Promise<{ id: string; object: 'space.file'; deleted: true }> {
    const space = await this.space(auth, appId);
    const row = orNotFound(await this.deps.files.delete(space.id, fileId));
    await searchableFilesChanged(this.deps, space.id);
    return { id: row.id, object: 'space.file', deleted: true };
  }

  /** A file whose ingestion cannot be queued would stay `queued` forever: it is removed and the upload fails. */
  private async enqueueOrForget(row: SpaceFileRow): Promise<void> {
    try {
      await this.deps.enqueue({ fileId: row.id, appId: row.app_id });
    } catch (err) {
      await this.deps.files.delete(row.app_id, row.id);
      throw err;
    }
  }

  private space(auth: AuthContext, appId: string): Promise<SpaceRef> {
    return requireVisibleSpace((id) => findSpaceRef(this.deps.db, id), auth, appId);
  }
}
