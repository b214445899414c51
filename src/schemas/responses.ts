import { z } from 'zod';
import { REASONING_EFFORTS } from '../domain/reasoning';
import { int4 } from './common';

/**
 * OpenAI's Responses API request (`POST /v1/responses`). As OpenAI does, unknown top-level fields are
 * refused (400 naming them); fields OpenAI knows that Switchyard cannot honour are refused too, naming
 * the field, rather than accepted and silently ignored.
 */

const detail = z.enum(['auto', 'low', 'high']).nullable().optional();

const inputTextPart = z.object({ type: z.literal('input_text'), text: z.string() });
/** Assistant turns sent back carry their annotations and logprobs: accepted and not needed. */
const outputTextPart = z.object({ type: z.literal('output_text'), text: z.string() });
const refusalPart = z.object({ type: z.literal('refusal'), refusal: z.string() });
const inputImagePart = z
  .object({ type: z.literal('input_image'), image_url: z.string().min(1).nullable().optional(), file_id: z.string().nullable().optional(), detail })
  .superRefine((part, ctx) => {
    if (part.file_id)
      ctx.addIssue({ code: 'custom', message: 'images by file_id are not supported; send image_url (a URL or a data: URL)', path: ['file_id'] });
    else if (!part.image_url) ctx.addIssue({ code: 'custom', message: 'an input_image needs image_url', path: ['image_url'] });
  });

const contentPart = z.discriminatedUnion('type', [inputTextPart, outputTextPart, refusalPart, inputImagePart]);
export type ResponsesContentPart = z.infer<typeof contentPart>;

const messageItem = z.object({
  type: z.literal('message'),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPart)]),
  id: z.string().optional(),
});

const functionCallItem = z.object({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  id: z.string().optional(),
});

const functionCallOutputItem = z.object({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(z.discriminatedUnion('type', [inputTextPart, inputImagePart]))]),
  id: z.string().nullable().optional(),
});

/** An output item of a stored response, named by its id (the Vercel AI SDK sends these with `store`). */
const itemReference = z.object({ type: z.literal('item_reference'), id: z.string().min(1) });

/** A message may leave out `type` (the "easy input message" of OpenAI's SDK). */
const inputItem = z.preprocess(
  (item) => (item !== null && typeof item === 'object' && !('type' in item) && 'role' in item ? { ...item, type: 'message' } : item),
  z.discriminatedUnion('type', [messageItem, functionCallItem, functionCallOutputItem, itemReference]),
);
export type ResponsesInputItem = z.infer<typeof inputItem>;
/** An input item once `item_reference`s have been replaced by the items they name. */
export type ResolvedItem = Exclude<ResponsesInputItem, { type: 'item_reference' }>;

const functionTool = z.object({
  type: z.literal('function'),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64'),
  description: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  strict: z.boolean().nullable().optional(),
});
export type ResponsesFunctionTool = z.infer<typeof functionTool>;

const toolChoice = z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), name: z.string().min(1) })]);
export type ResponsesToolChoice = z.infer<typeof toolChoice>;

const textFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64'),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().optional(),
    strict: z.boolean().nullable().optional(),
  }),
]);
export type ResponsesTextFormat = z.infer<typeof textFormat>;

/** OpenAI's limits on `metadata`: 16 pairs, keys up to 64 characters, values up to 512. */
const metadata = z.record(z.string().max(64), z.string().max(512)).refine((map) => Object.keys(map).length <= 16, 'at most 16 keys');

/** A field OpenAI knows but Switchyard does not do: accepted only at the value that asks for nothing. */
function unsupported(what: string) {
  return z.unknown().refine((value) => value === undefined || value === null, `${what} is not supported by this service`);
}

export const responsesRequestSchema = z
  .strictObject({
    model: z.string().min(1).max(200).optional(),
    /** A string is one user message; read as such here, so that an item's error names the item's own field. */
    input: z
      .preprocess((input) => (typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input), z.array(inputItem).min(1))
      .describe('A string (one user message) or a list of input items.'),
    instructions: z.string().nullable().optional(),
    tools: z.array(functionTool).max(128).optional(),
    tool_choice: toolChoice.optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().min(0).max(1).nullable().optional(),
    max_output_tokens: int4.min(16).nullable().optional(),
    text: z.strictObject({ format: textFormat.optional(), verbosity: z.enum(['low', 'medium', 'high']).nullable().optional() }).optional(),
    reasoning: z
      .strictObject({ effort: z.enum(REASONING_EFFORTS).nullable().optional(), summary: unsupported('a reasoning summary').optional() })
      .nullable()
      .optional()
      .describe("`effort`: as chat's `reasoning_effort` (docs/reasoning.md)."),
    metadata: metadata.nullable().optional(),
    user: z.string().optional(),
    safety_identifier: z.string().max(64).optional(),
    prompt_cache_key: z.string().optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.strictObject({ include_obfuscation: z.boolean().optional() }).nullable().optional(),
    store: z.boolean().nullable().optional(),
    previous_response_id: z.string().min(1).nullable().optional(),
    truncation: z.literal('disabled').nullable().optional().describe("Only `disabled`: an input longer than the model's context is refused, never cut."),
    service_tier: z.enum(['auto', 'default']).nullable().optional(),
    include: z.array(z.string()).max(0, 'no extra output data is available from this service').nullable().optional(),
    background: z.literal(false).nullable().optional().describe('Background mode is not supported; see `Prefer: respond-async` on chat completions.'),
    conversation: unsupported("'conversation' (use previous_response_id)").optional(),
    prompt: unsupported('a stored prompt template').optional(),
    max_tool_calls: unsupported('max_tool_calls (built-in tools)').optional(),
    top_logprobs: z.literal(0).nullable().optional(),
  })
  .meta({ id: 'ResponsesRequest' });
export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

export const responseIdParams = z.object({ response_id: z.string().min(1).max(100) });
