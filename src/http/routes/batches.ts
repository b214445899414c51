import { batchIdParams, batchListQuery, batchSchema, createBatchBody } from '../../schemas/batches';
import { pageOf } from '../../schemas/common';
import type { BatchService } from '../../services/batches/batch-service';
import { defineRoute, type Route } from '../route';

const tags = ['Batches'];

const CREATE_NOTE = [
  "OpenAI's Batch API: every line of the input file runs as a completion of the key's Space (routing, plugins, retries and failover, a log with cost and savings), at a lower priority than interactive requests.",
  'The file is validated first (`validating`); a malformed line fails the batch with `errors.data` naming its line, before any model is called.',
  'Only `endpoint: /v1/chat/completions` and `completion_window: 24h`. A Space at privacy level 3 cannot run batches (400).',
].join(' ');

export function batchRoutes({ batches }: { batches: BatchService }): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/batches',
      operationId: 'createBatch',
      summary: 'Create a batch from an uploaded file',
      description: CREATE_NOTE,
      tags,
      permission: 'completions:create',
      body: createBatchBody,
      response: batchSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, body }) => batches.create(auth, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/batches',
      operationId: 'listBatches',
      summary: "List the organization's batches, newest first",
      tags,
      permission: 'completions:create',
      query: batchListQuery,
      response: pageOf(batchSchema),
      status: 200,
      handle: ({ auth, query }) => batches.list(auth, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/batches/{batch_id}',
      operationId: 'retrieveBatch',
      summary: 'Read a batch: status, request counts, output and error files',
      tags,
      permission: 'completions:create',
      params: batchIdParams,
      response: batchSchema,
      status: 200,
      errors: [404],
      handle: ({ auth, params }) => batches.get(auth, params.batch_id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/batches/{batch_id}/cancel',
      operationId: 'cancelBatch',
      summary: 'Cancel a batch',
      description:
        'The batch is `cancelling` at once; lines not started stop within seconds, running ones finish, then it is `cancelled` with the finished lines in its output file. 409 for a batch that has ended.',
      tags,
      permission: 'completions:create',
      params: batchIdParams,
      response: batchSchema,
      status: 200,
      errors: [404, 409],
      handle: ({ auth, params }) => batches.cancel(auth, params.batch_id),
    }),
  ];
}
