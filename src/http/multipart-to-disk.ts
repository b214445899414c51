import { tmpdir } from 'node:os';
import type { Request, Response } from 'express';
import multer from 'multer';
import { ApiError } from '../errors/api-error';
import { baseName, uploadError, type UploadLimits } from './multipart-upload';

export interface UploadedTempFile {
  /** The client's file name, without any directory part. */
  name: string;
  /** Where the bytes were written; the caller removes it. */
  path: string;
  bytes: number;
  /** The text fields sent beside the file (OpenAI's SDK sends `purpose` after `file`). */
  fields: Record<string, unknown>;
}

/** Text fields a client may send beside the file. */
const MAX_FIELDS = 4;

/**
 * Streams one file of a `multipart/form-data` body to a temporary file, refusing it past `maxBytes`
 * (413) as it comes in: a 200 MB batch input is never held in memory. 415 for any other content type.
 */
export async function readUploadToDisk(req: Request, res: Response, limits: UploadLimits): Promise<UploadedTempFile> {
  if (!req.is('multipart/form-data')) {
    throw new ApiError('unsupported_media_type', `Send the file as 'Content-Type: multipart/form-data' in the field '${limits.field}'.`, 'Content-Type');
  }
  const middleware = multer({
    storage: multer.diskStorage({ destination: tmpdir() }),
    defParamCharset: 'utf8',
    limits: { fileSize: limits.maxBytes, files: 1, fields: MAX_FIELDS, parts: MAX_FIELDS + 1 },
  }).single(limits.field);
  await new Promise<void>((resolve, reject) => {
    middleware(req, res, (err?: unknown) => (err ? reject(uploadError(err, limits)) : resolve()));
  });
  const file = req.file;
  if (!file) throw new ApiError('missing_field', `Missing required field '${limits.field}': send the file in it.`, limits.field);
  const fields = (req.body ?? {}) as Record<string, unknown>;
  return { name: baseName(file.originalname), path: file.path, bytes: file.size, fields };
}
