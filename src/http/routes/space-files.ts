import { z } from 'zod';
import { pageOf } from '../../schemas/common';
import { deletedSpaceFileSchema, spaceFileListQuery, spaceFileSchema, spaceFileUploadBody } from '../../schemas/space-files';
import type { SpaceFileService } from '../../services/space-files/space-file-service';
import { readSingleUpload } from '../multipart-upload';
import { defineRoute, type Route } from '../route';

const appParams = z.object({ app_id: z.uuid() });
const fileParams = appParams.extend({ file_id: z.uuid() });
const tags = ['Space files'];

const UPLOAD_NOTE = [
  'A `multipart/form-data` body with the file in the field `file` (a `purpose` field is accepted and ignored, for OpenAI SDK clients; any other field is refused with 400 `unknown_field`).',
  'At most `SPACE_FILE_MAX_BYTES` (20 MiB unless configured; 413 otherwise).',
  'Accepted, by extension and by content: txt, md, html, csv, json, pdf, docx (indexed for the `space-search` plugin) and mp3, wav, m4a, ogg, webm, flac (stored for `transcribe-audio`, not indexed); anything else is 415.',
  "Answers 201 with the file as soon as it is stored, like OpenAI's Files API returns its file object at once: indexing runs on the `space-files` queue and `status` goes `queued` → `processing` → `ready` or `failed` (poll GET). Audio is `ready` at once.",
].join(' ');

export function spaceFileRoutes({ spaceFiles }: { spaceFiles: SpaceFileService }): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/apps/{app_id}/files',
      operationId: 'uploadSpaceFile',
      summary: 'Upload a file to a Space',
      description: UPLOAD_NOTE,
      tags,
      permission: 'apps:update',
      params: appParams,
      multipartBody: spaceFileUploadBody,
      response: spaceFileSchema,
      status: 201,
      errors: [404, 413],
      handle: ({ auth, params, req, res }) =>
        spaceFiles.upload(auth, params.app_id, (maxBytes) => readSingleUpload(req, res, { field: 'file', maxBytes, textFields: ['purpose'] })),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{app_id}/files',
      operationId: 'listSpaceFiles',
      summary: "List a Space's files, newest first",
      tags,
      permission: 'apps:read',
      params: appParams,
      query: spaceFileListQuery,
      response: pageOf(spaceFileSchema),
      status: 200,
      errors: [404],
      handle: ({ auth, params, query }) => spaceFiles.list(auth, params.app_id, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{app_id}/files/{file_id}',
      operationId: 'getSpaceFile',
      summary: 'Read a Space file (its metadata and ingestion status)',
      tags,
      permission: 'apps:read',
      params: fileParams,
      response: spaceFileSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => spaceFiles.get(auth, params.app_id, params.file_id),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/apps/{app_id}/files/{file_id}',
      operationId: 'deleteSpaceFile',
      summary: 'Delete a Space file with its bytes and search index',
      tags,
      permission: 'apps:update',
      params: fileParams,
      response: deletedSpaceFileSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => spaceFiles.delete(auth, params.app_id, params.file_id),
    }),
  ];
}
