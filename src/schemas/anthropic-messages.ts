import { z } from 'zod';
import { int4 } from './common';
import { completionMetadataSchema } from './chat-completions';

/**
 * Anthropic's Messages API (`POST /v1/messages`, version 2023-06-01), the part Switchyard answers.
 * Blocks are plain objects: keys Anthropic has and Switchyard does not use (`cache_control`,
 * `citations`) are accepted and dropped, and so are thinking blocks; block types it cannot translate
 * (documents, server tools) are refused with a 400 naming the block.
 */
const textBlock = z.object({ type: z.literal('text'), text: z.string() });

const imageSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('base64'), media_type: z.string().regex(/^image\/[\w.+-]+$/, 'an image media type'), data: z.string().min(1) }),
  z.object({ type: z.literal('url'), url: z.url() }),
]);
const imageBlock = z.object({ type: z.literal('image'), source: imageSource });

const toolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});

const toolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(textBlock)]).optional(),
  is_error: z.boolean().optional(),
});

/** Earlier answers' reasoning, which clients (Claude Code) send back in assistant turns: accepted and dropped, as no other provider can take it. */
const thinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() });
const redactedThinkingBlock = z.object({ type: z.literal('redacted_thinking'), data: z.string() });

const contentBlock = z.discriminatedUnion('type', [textBlock, imageBlock, toolUseBlock, toolResultBlock, thinkingBlock, redactedThinkingBlock]);
export type AnthropicContentBlock = z.infer<typeof contentBlock>;

/** A `system` turn among the messages (newer SDKs send them) holds text only; see `misplacedBlock`. */
const messageParam = z.object({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(contentBlock)]),
});
export type AnthropicMessageParam = z.infer<typeof messageParam>;

const toolParam = z.object({
  type: z.literal('custom').optional(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64'),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
});

const toolChoice = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.object({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }),
  z.object({ type: z.literal('none') }),
]);

/** `display` (summarized or omitted thinking) is accepted and has no effect: thinking blocks are not returned (docs/reasoning.md). */
const thinkingDisplay = z.enum(['summarized', 'omitted']).nullable().optional();

/**
 * Extended thinking: `enabled` with a budget (at least 1,024 tokens, and under `max_tokens`, checked by the
 * route), `adaptive` (the model decides; `output_config.effort` sets how much), or `disabled`.
 */
const thinkingConfig = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('enabled'), budget_tokens: int4.min(1024), display: thinkingDisplay }),
    z.object({ type: z.literal('adaptive'), display: thinkingDisplay }),
    z.object({ type: z.literal('disabled') }),
  ])
  .describe(
    'How much the model reasons first: to Claude as a thinking budget, to OpenAI-compatible models as `reasoning_effort`, to Gemini as `thinkingBudget` (docs/reasoning.md). A model that takes no reasoning setting answers without it, and `metadata.warning` says so. Thinking blocks are not returned; thinking tokens count in `usage.output_tokens`.',
  );
export type ThinkingConfig = z.infer<typeof thinkingConfig>;

/** Unknown top-level fields are refused (400 naming the field), as Anthropic's API refuses them. */
export const messagesRequestSchema = z
  .strictObject({
    model: z.string().min(1).max(200).describe("A model of the Space's catalog, or the service's own name (`AUTO_MODEL_NAME`) for automatic choice."),
    max_tokens: int4.positive(),
    system: z.union([z.string(), z.array(textBlock)]).optional(),
    messages: z.array(messageParam).min(1),
    tools: z.array(toolParam).max(128).optional(),
    tool_choice: toolChoice.optional(),
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.number().int().min(0).optional().describe('Accepted and not passed on: the chosen model may not support it.'),
    stop_sequences: z.array(z.string()).optional(),
    stream: z.boolean().default(false),
    metadata: z.object({ user_id: z.string().max(256).nullable().optional() }).optional(),
    thinking: thinkingConfig.optional(),
    output_config: z
      .object({
        format: z
          .object({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) })
          .nullable()
          .optional(),
        effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).nullable().optional(),
      })
      .optional()
      .describe(
        '`format` asks for JSON matching the schema (as `response_format` does for chat); `effort` sets how much the model reasons, as with `thinking` (docs/reasoning.md); other settings are ignored.',
      ),
  })
  .meta({ id: 'AnthropicMessagesRequest' });
export type MessagesRequest = z.infer<typeof messagesRequestSchema>;

const responseBlock = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
]);
export type AnthropicResponseBlock = z.infer<typeof responseBlock>;

export const STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export const anthropicUsageSchema = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int().describe('Output tokens, thinking included (billed as output).'),
  cache_creation_input_tokens: z.number().int(),
  cache_read_input_tokens: z.number().int(),
  output_tokens_details: z
    .object({ thinking_tokens: z.number().int() })
    .optional()
    .describe('Present when the model reported reasoning tokens: the part of `output_tokens` it spent thinking.'),
});

export const messageResponseSchema = z
  .object({
    id: z.string().describe('`msg_` then the id of the request log (also in the `x-switchyard-log-id` header).'),
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string().describe('The model that answered.'),
    content: z.array(responseBlock),
    stop_reason: z.enum(STOP_REASONS).nullable(),
    stop_sequence: z.string().nullable(),
    usage: anthropicUsageSchema,
    metadata: completionMetadataSchema.describe("Extra field: Switchyard's metadata (chosen model, costs, savings, scores), as on a chat completion."),
  })
  .meta({ id: 'AnthropicMessage' });
export type MessageResponse = z.infer<typeof messageResponseSchema>;

export const countTokensRequestSchema = messagesRequestSchema
  .omit({ max_tokens: true, stream: true, temperature: true, top_p: true, top_k: true, stop_sequences: true, metadata: true, output_config: true })
  .meta({ id: 'AnthropicCountTokensRequest' });
export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;

export const countTokensResponseSchema = z
  .object({ input_tokens: z.number().int().describe("An estimate with OpenAI's o200k tokenizer: Claude's own tokenizer is not public.") })
  .meta({ id: 'AnthropicTokenCount' });

export const anthropicErrorSchema = z
  .object({
    type: z.literal('error'),
    error: z.object({
      type: z.enum([
        'invalid_request_error',
        'authentication_error',
        'permission_error',
        'not_found_error',
        'request_too_large',
        'rate_limit_error',
        'api_error',
        'overloaded_error',
      ]),
      message: z.string(),
    }),
  })
  .meta({ id: 'AnthropicError' });
