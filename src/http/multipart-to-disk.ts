import { tmpdir } from 'node:os';
import type { Request, Response } from 'express';
import multer from 'multer';
import type { UploadedTempFile } from '../services/openai-files/uploaded-temp-file';
import { baseName, receiveSingleFile, type UploadLimits } from './multipart-upload';

/**
 * Streams one file of a `multipart/form-data` body to a temporary file, refusing it past `maxBytes`
 * (413) as it comes in: a 200 MB batch input is never held in memory. 415 for any other content type.
 */
export async function readUploadToDisk(req: Request, res: Response, limits: UploadLimits): Promise<UploadedTempFile> {
  const file = await receiveSingleFile(req, res, { limits, storage: multer.diskStorage({ destination: tmpdir() }) });
  const fields = (req.body ?? {}) as Record<string, unknown>;
  return { name: baseName(file.originalname), path: file.path, bytes: file.size, fields };
}
