import { pipeline } from 'node:stream/promises';
import { pageOf } from '../../schemas/common';
import { deletedOpenAiFileSchema, fileIdParams, openAiFileListQuery, openAiFileSchema, openAiFileUploadBody } from '../../schemas/openai-files';
import type { OpenAiFileService } from '../../services/openai-files/openai-file-service';
import { readUploadToDisk } from '../multipart-to-disk';
import { defineRoute, RESPONDED, type Route } from '../route';

const tags = ['Files'];

const UPLOAD_NOTE = [
  "OpenAI's Files API, for batch input: a `multipart/form-data` body with the JSONL file in `file` and `purpose: batch`.",
  'At most `FILE_MAX_BYTES` (200 MB; 413 past it) and `BATCH_MAX_LINES` lines (50,000).',
  'Files belong to the key’s organization: another organization’s file id answers 404.',
  'The lines are validated when a batch is created from the file, as OpenAI does.',
].join(' ');

export function openAiFileRoutes({ openAiFiles }: { openAiFiles: OpenAiFileService }): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/files',
      operationId: 'createFile',
      summary: 'Upload a file (batch input)',
      description: UPLOAD_NOTE,
      tags,
      permission: 'completions:create',
      multipartBody: openAiFileUploadBody,
      response: openAiFileSchema,
      status: 200,
      errors: [413],
      handle: ({ auth, req, res }) => openAiFiles.upload(auth, (maxBytes) => readUploadToDisk(req, res, { field: 'file', maxBytes, textFields: ['purpose'] })),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/files',
      operationId: 'listFiles',
      summary: "List the organization's files",
      tags,
      permission: 'completions:create',
      query: openAiFileListQuery,
      response: pageOf(openAiFileSchema),
      status: 200,
      handle: ({ auth, query }) => openAiFiles.list(auth, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/files/{file_id}',
      operationId: 'retrieveFile',
      summary: 'Read a file object',
      tags,
      permission: 'completions:create',
      params: fileIdParams,
      response: openAiFileSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => openAiFiles.get(auth, params.file_id),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/files/{file_id}/content',
      operationId: 'downloadFile',
      summary: "A file's bytes",
      description: 'The JSONL as stored, `application/octet-stream`.',
      tags,
      permission: 'completions:create',
      params: fileIdParams,
      status: 200,
      errors: [404],
      handle: async ({ auth, params, res }) => {
        const { file, body } = await openAiFiles.content(auth, params.file_id);
        res.status(200).set({ 'Content-Type': 'application/octet-stream', 'Content-Length': String(file.bytes) });
        await pipeline(body, res);
        return RESPONDED;
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/files/{file_id}',
      operationId: 'deleteFile',
      summary: 'Delete a file and its bytes',
      tags,
      permission: 'completions:create',
      params: fileIdParams,
      response: deletedOpenAiFileSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => openAiFiles.delete(auth, params.file_id),
    }),
  ];
}
