import type { JobReading, JobService } from '../../async-jobs/job-service';
import { chatCompletionJobSchema, jobParams } from '../../schemas/chat-completion-job';
import { chatCompletionJobBody } from '../../formats/chat-completion-job';
import { defineRoute, type Route } from '../route';

const tags = ['Jobs'];
const SCOPE_NOTE = [
  "Jobs of the caller's organization only (another's answers 404 like an unknown id). A job is kept for",
  '`ASYNC_RESULT_TTL_SECONDS` (24 h by default) after it was accepted, and again after it ended; then it answers 404.',
].join(' ');

const bodyOf = ({ record, status }: JobReading) => chatCompletionJobBody(record, status);

export function jobRoutes({ jobs }: { jobs: JobService }): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/jobs/{job_id}',
      operationId: 'getJob',
      summary: 'Read an async chat completion (status, and the response once it ended)',
      description: `${SCOPE_NOTE} Once the job has ended, \`response.body\` is exactly what the synchronous call would have answered.`,
      tags,
      permission: 'completions:create',
      params: jobParams,
      response: chatCompletionJobSchema,
      status: 200,
      errors: [404],
      handle: async ({ auth, params }) => bodyOf(await jobs.get(auth, params.job_id)),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/jobs/{job_id}/cancel',
      operationId: 'cancelJob',
      summary: 'Cancel an async chat completion that has not ended',
      description: `${SCOPE_NOTE} The job is \`cancelled\` at once; its worker stops it and calls no upstream more. No webhook is sent for it. A job that already ended answers 409 \`invalid_state_transition\`.`,
      tags,
      permission: 'completions:create',
      params: jobParams,
      response: chatCompletionJobSchema,
      status: 200,
      errors: [404, 409],
      handle: async ({ auth, params }) => bodyOf(await jobs.cancel(auth, params.job_id)),
    }),
  ];
}
