import { z } from 'zod';
import { JOB_STATUSES } from '../domain/async-job';
import { completionResponseSchema } from './chat-completions';
import { uuid } from './common';

/** `POST /v1/chat/completions` with `Prefer: respond-async`, and `GET /v1/jobs/{id}`. */

export const RESPOND_ASYNC = 'respond-async';

const errorBody = z.object({
  error: z.object({ message: z.string(), type: z.string(), code: z.string(), param: z.string().nullable() }),
});

const epochSeconds = z.number().int().describe('Unix time, in seconds.');

export const chatCompletionJobSchema = z
  .object({
    id: uuid.describe('The job id: also the request id, the id of its log (`x-switchyard-log-id`) and of the chat completion it answers.'),
    object: z.literal('chat.completion.job'),
    status: z
      .enum(JOB_STATUSES)
      .describe('`expired`: it waited in the queue past the completion timeout (COMPLETION_TIMEOUT_MS), or timed out after it, and was not answered.'),
    created_at: epochSeconds,
    finished_at: epochSeconds.nullable(),
    model: z
      .string()
      .nullable()
      .describe(
        'The model that answered, once the job has an answer (for an automatic choice too). Until then, and when no model answered, the `model` the request named; null for automatic choice.',
      ),
    response: z
      .object({
        status_code: z.number().int().describe('The HTTP status the synchronous call would have answered with.'),
        request_id: z.string(),
        body: z
          .union([completionResponseSchema, errorBody])
          .describe('Exactly the body the synchronous call would have answered with: a `chat.completion` or an error.'),
      })
      .nullable()
      .describe('Once the job has ended; null before, for a cancelled job, and when its Space is at privacy level 3 (nothing of the answer is kept).'),
    webhook: z
      .object({
        url: z.string(),
        status: z.enum(['pending', 'delivered', 'failed']),
        attempts: z.number().int(),
        last_status_code: z.number().int().nullable(),
        last_error: z.string().nullable(),
        delivered_at: epochSeconds.nullable(),
      })
      .nullable()
      .describe("The webhook called when the job ends (the request's `webhook_url`, else the Space's `settings.webhook.url`), or null."),
  })
  .meta({ id: 'ChatCompletionJob' });
export type ChatCompletionJob = z.input<typeof chatCompletionJobSchema>;

export const jobParams = z.object({ job_id: uuid });
