import { z } from 'zod';
import { dateTime, pageQuery, uuid } from './common';

export const SPACE_FILE_STATUSES = ['queued', 'processing', 'ready', 'failed'] as const;

export const spaceFileSchema = z
  .object({
    id: uuid,
    object: z.literal('space.file'),
    app_id: uuid.describe('The Space the file belongs to.'),
    name: z.string().describe('The uploaded file name (no directories).'),
    mime_type: z.string().describe('The type the content was recognised as (not the one the client declared).'),
    size_bytes: z.number().int(),
    sha256: z.string().describe('Hex SHA-256 of the bytes.'),
    status: z
      .enum(SPACE_FILE_STATUSES)
      .describe('`queued` → `processing` → `ready` (searchable) or `failed` (see `error`). Audio files are stored, not indexed: `ready` with no chunks.'),
    error: z
      .string()
      .nullable()
      .describe('Why ingestion failed; for a `ready` file, a note (e.g. embeddings were unavailable and it is searchable by full text only).'),
    chunk_count: z.number().int().describe('Searchable passages the text was cut into.'),
    added_on: dateTime,
    modified_on: dateTime,
  })
  .meta({ id: 'SpaceFile' });
export type SpaceFileView = z.input<typeof spaceFileSchema>;

export const deletedSpaceFileSchema = z.object({ id: uuid, object: z.literal('space.file'), deleted: z.literal(true) }).meta({ id: 'SpaceFileDeleted' });

/** What the multipart body carries; for the API description only (the route reads the body itself). */
export const spaceFileUploadBody = z
  .object({
    file: z
      .string()
      .meta({ format: 'binary' })
      .describe('The file: txt, md, html, csv, json, pdf, docx (indexed), or mp3, wav, m4a, ogg, webm, flac (stored for transcribe-audio).'),
    purpose: z.string().max(64).optional().describe("Accepted and ignored, so OpenAI's SDK `files.create` can upload here."),
  })
  .meta({ id: 'SpaceFileUpload' });

export const spaceFileListQuery = pageQuery;
