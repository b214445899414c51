import { z } from 'zod';
import { completionMetadataSchema } from './chat-completions';

/** OpenAI's `response` object, as `POST /v1/responses` and `GET /v1/responses/{id}` answer it. */

const annotation = z.discriminatedUnion('type', [
  z.object({ type: z.literal('url_citation'), start_index: z.number().int(), end_index: z.number().int(), url: z.string(), title: z.string() }),
  z.object({ type: z.literal('file_citation'), file_id: z.string(), filename: z.string(), index: z.number().int() }),
]);
export type ResponsesAnnotation = z.infer<typeof annotation>;

const outputText = z.object({ type: z.literal('output_text'), text: z.string(), annotations: z.array(annotation), logprobs: z.array(z.never()) });
export type OutputTextPart = z.infer<typeof outputText>;

const itemStatus = z.enum(['in_progress', 'completed', 'incomplete']);

const messageOutput = z.object({
  type: z.literal('message'),
  id: z.string(),
  status: itemStatus,
  role: z.literal('assistant'),
  content: z.array(outputText),
});
export type MessageOutputItem = z.infer<typeof messageOutput>;

const functionCallOutput = z.object({
  type: z.literal('function_call'),
  id: z.string(),
  status: itemStatus,
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export type FunctionCallOutputItem = z.infer<typeof functionCallOutput>;

const outputItem = z.discriminatedUnion('type', [messageOutput, functionCallOutput]);
export type OutputItem = z.infer<typeof outputItem>;

const usage = z.object({
  input_tokens: z.number().int(),
  input_tokens_details: z.object({ cached_tokens: z.number().int() }),
  output_tokens: z.number().int(),
  output_tokens_details: z.object({
    reasoning_tokens: z.number().int().describe('The part of `output_tokens` the model spent reasoning, as its provider reported it (0 when none was).'),
  }),
  total_tokens: z.number().int(),
});

export const responseObjectSchema = z
  .object({
    id: z.string().describe("`resp_` and the request log's id without dashes (the log id is also in the `x-switchyard-log-id` header)."),
    object: z.literal('response'),
    created_at: z.number().int(),
    status: z.enum(['completed', 'failed', 'in_progress', 'incomplete']),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    incomplete_details: z.object({ reason: z.string() }).nullable(),
    instructions: z.string().nullable(),
    max_output_tokens: z.number().int().nullable(),
    model: z.string(),
    output: z.array(outputItem),
    parallel_tool_calls: z.boolean(),
    previous_response_id: z.string().nullable(),
    reasoning: z.object({ effort: z.string().nullable(), summary: z.null() }),
    service_tier: z.string(),
    store: z.boolean().describe('Whether the response was kept: false when asked, and at privacy level 2 and 3 unless `store: true` was sent (then refused).'),
    temperature: z.number().nullable(),
    text: z.object({ format: z.record(z.string(), z.unknown()) }),
    tool_choice: z.unknown(),
    tools: z.array(z.record(z.string(), z.unknown())),
    top_p: z.number().nullable(),
    truncation: z.literal('disabled'),
    usage: usage.nullable(),
    user: z.string().nullable(),
    metadata: z.record(z.string(), z.string()).describe("The caller's own map, as sent."),
    switchyard: completionMetadataSchema
      .nullable()
      .describe("Extra field: Switchyard's metadata of the request (chosen model, costs, savings, routing scores, plugins); null while in progress."),
  })
  .meta({ id: 'Response' });
export type ResponseObject = z.infer<typeof responseObjectSchema>;

export const deletedResponseSchema = z.object({ id: z.string(), object: z.literal('response'), deleted: z.literal(true) }).meta({ id: 'DeletedResponse' });
