import { rm } from 'node:fs/promises';
import type { Request, Response } from 'express';
import multer, { MulterError } from 'multer';
import { ApiError } from '../errors/api-error';

export interface UploadedFile {
  /** The client's file name, without any directory part. */
  name: string;
  bytes: Buffer;
}

export interface UploadLimits {
  /** The form field that carries the file. */
  field: string;
  maxBytes: number;
  /** The text fields the route reads beside the file; any other is refused with 400 `unknown_field`. */
  textFields: readonly string[];
}

/** Text fields a client may send beside the file (OpenAI's SDK sends `purpose`). */
const MAX_FIELDS = 4;

function uploadError(err: unknown, { field, maxBytes }: UploadLimits): ApiError {
  if (!(err instanceof MulterError))
    return new ApiError('invalid_request', `The multipart body could not be read: ${err instanceof Error ? err.message : String(err)}.`, field);
  if (err.code === 'LIMIT_FILE_SIZE') return new ApiError('payload_too_large', `The file is larger than the ${maxBytes} bytes allowed.`, field);
  if (err.code === 'LIMIT_UNEXPECTED_FILE') return new ApiError('invalid_request', `Send exactly one file, in the form field '${field}'.`, field);
  return new ApiError('invalid_request', `The multipart body was refused: ${err.message}.`, field);
}

/** Browsers and SDKs may send a full path (`C:\\docs\\a.pdf`); only the last part names the file. */
export function baseName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? '';
  // PostgreSQL text cannot hold NUL, and control characters have no place in a name.
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const printable = last.replace(/[\u0000-\u001f\u007f]/g, '');
  return printable.trim().slice(0, 255);
}

/**
 * Reads the one file of a `multipart/form-data` body with multer's `storage` (memory, or a temporary
 * file), refusing it past `maxBytes` (413) while it streams in, and 415 for any other content type.
 * The caller's file, with the text fields sent beside it.
 */
export async function receiveSingleFile(
  req: Request,
  res: Response,
  { limits, storage }: { limits: UploadLimits; storage: multer.StorageEngine },
): Promise<Express.Multer.File> {
  if (!req.is('multipart/form-data')) {
    throw new ApiError('unsupported_media_type', `Send the file as 'Content-Type: multipart/form-data' in the field '${limits.field}'.`, 'Content-Type');
  }
  const middleware = multer({
    storage,
    // File names in UTF-8, as browsers and SDKs send them, unless a part says otherwise.
    defParamCharset: 'utf8',
    limits: { fileSize: limits.maxBytes, files: 1, fields: MAX_FIELDS, parts: MAX_FIELDS + 1 },
  }).single(limits.field);
  await new Promise<void>((resolve, reject) => {
    middleware(req, res, (err?: unknown) => (err ? reject(uploadError(err, limits)) : resolve()));
  });
  const file = req.file;
  const unknown = Object.keys((req.body ?? {}) as Record<string, unknown>).find((name) => !limits.textFields.includes(name));
  if (unknown !== undefined) {
    // A file written to disk is not kept for a refused request.
    if (file?.path) await rm(file.path, { force: true });
    throw new ApiError('unknown_field', `Unrecognized field '${unknown}'.`, unknown);
  }
  if (!file) throw new ApiError('missing_field', `Missing required field '${limits.field}': send the file in it.`, limits.field);
  return file;
}

/**
 * Reads one file from a `multipart/form-data` body into memory, refusing it past `maxBytes` (413)
 * while it streams in, so an oversized upload is never held whole. 415 for any other content type.
 */
export async function readSingleUpload(req: Request, res: Response, limits: UploadLimits): Promise<UploadedFile> {
  const file = await receiveSingleFile(req, res, { limits, storage: multer.memoryStorage() });
  const name = baseName(file.originalname);
  if (!name) throw new ApiError('invalid_value', `Invalid value for '${limits.field}': the file has no name.`, limits.field);
  if (file.size === 0) throw new ApiError('invalid_value', `Invalid value for '${limits.field}': the file is empty.`, limits.field);
  return { name, bytes: file.buffer };
}
