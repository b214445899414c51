import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import type { FileStore } from '../../file-store/file-store';
import type { UploadedTempFile } from './uploaded-temp-file';
import type { Page } from '../../schemas/common';
import { type FilePurpose, type OpenAiFileListQuery, type OpenAiFileView } from '../../schemas/openai-files';
import type { NewOpenAiFile, OpenAiFileRepository, OpenAiFileRow } from '../../store/openai-files';
import { toPage } from '../../store/pagination';
import { countLines } from './count-lines';
import { newFileId, storageKeyOf } from './file-ids';
import { presentFile } from './present-file';

export interface OpenAiFileServiceDeps {
  files: OpenAiFileRepository;
  store: FileStore;
  /** Largest upload, in bytes. */
  maxBytes: number;
  /** Most lines of a batch input file. */
  maxLines: number;
}

/** Streams a client's upload to a temporary file within the byte limit. */
export type ReadUploadToDisk = (maxBytes: number) => Promise<UploadedTempFile>;

/** A file written to local disk, to be kept in the store under a new file id. */
export interface FileToKeep {
  orgId: string;
  purpose: FilePurpose;
  filename: string;
  path: string;
  bytes: number;
  lineCount: number;
}

function orNotFound(row: OpenAiFileRow | null): OpenAiFileRow {
  if (!row) throw ApiError.notFound('File', 'file_id');
  return row;
}

/** Which purposes an upload may name: OpenAI's others (assistants, vision, user_data, ...) have no use here. */
function uploadPurpose(value: unknown): 'batch' {
  if (value === undefined || value === '') throw new ApiError('missing_field', "Missing required field 'purpose': send 'batch'.", 'purpose');
  if (value !== 'batch') throw new ApiError('invalid_value', `Invalid value for 'purpose': only 'batch' is supported (got '${String(value)}').`, 'purpose');
  return value;
}

/** OpenAI's Files API for one organization: upload, list, read, content, delete; bytes in the file store. */
export class OpenAiFileService {
  constructor(private readonly deps: OpenAiFileServiceDeps) {}

  async upload(auth: AuthContext, readUpload: ReadUploadToDisk): Promise<OpenAiFileView> {
    const upload = await readUpload(this.deps.maxBytes);
    try {
      const purpose = uploadPurpose(upload.fields.purpose);
      if (!upload.name.toLowerCase().endsWith('.jsonl'))
        throw new ApiError('invalid_value', "Invalid value for 'file': a batch input must be a .jsonl file.", 'file');
      if (upload.bytes === 0) throw new ApiError('invalid_value', "Invalid value for 'file': the file is empty.", 'file');
      const lineCount = await countLines(upload.path);
      if (lineCount > this.deps.maxLines) {
        throw new ApiError(
          'invalid_value',
          `Invalid value for 'file': a batch input holds at most ${this.deps.maxLines} requests (this one has ${lineCount} lines).`,
          'file',
        );
      }
      const row = await this.keep({ orgId: auth.orgId, purpose, filename: upload.name, path: upload.path, bytes: upload.bytes, lineCount });
      return presentFile(row);
    } finally {
      await rm(upload.path, { force: true });
    }
  }

  /** Stores a file's bytes, then its row: a row never names bytes that are not there. */
  async keep(file: FileToKeep): Promise<OpenAiFileRow> {
    return this.deps.files.create(await this.stage(file));
  }

  /** Stores a file's bytes under a new id and returns the row to create (by a caller that creates it in its own transaction). */
  async stage(file: FileToKeep): Promise<NewOpenAiFile> {
    const id = newFileId();
    const storageKey = storageKeyOf(file.orgId, id);
    await this.deps.store.put(storageKey, createReadStream(file.path), file.bytes);
    return { id, org_id: file.orgId, purpose: file.purpose, filename: file.filename, bytes: file.bytes, line_count: file.lineCount, storage_key: storageKey };
  }

  async list(auth: AuthContext, query: OpenAiFileListQuery): Promise<Page<OpenAiFileView>> {
    const rows = await this.deps.files.list(auth.orgId, query);
    return toPage(rows, query, presentFile);
  }

  async get(auth: AuthContext, id: string): Promise<OpenAiFileView> {
    return presentFile(orNotFound(await this.deps.files.find(auth.orgId, id)));
  }

  /** The row (for its size) and its bytes as a stream. */
  async content(auth: AuthContext, id: string): Promise<{ file: OpenAiFileRow; body: Readable }> {
    const file = orNotFound(await this.deps.files.find(auth.orgId, id));
    return { file, body: await this.deps.store.get(file.storage_key) };
  }

  /** The row of a file of the organization, or null (for batches naming their input). */
  find(orgId: string, id: string): Promise<OpenAiFileRow | null> {
    return this.deps.files.find(orgId, id);
  }

  /** The bytes of a stored file (the batch coordinator reads its input). */
  open(file: OpenAiFileRow): Promise<Readable> {
    return this.deps.store.get(file.storage_key);
  }

  async delete(auth: AuthContext, id: string): Promise<{ id: string; object: 'file'; deleted: true }> {
    const row = orNotFound(await this.deps.files.delete(auth.orgId, id));
    await this.deps.store.delete(row.storage_key);
    return { id: row.id, object: 'file', deleted: true };
  }
}
