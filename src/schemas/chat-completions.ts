import { z } from 'zod';
import { REASONING_EFFORTS } from '../domain/reasoning';
import { policiesPatch, weightsPatch } from './apps';
import { PLUGIN_IDS } from './assistants';
import { int4, uuid } from './common';
import { featureFlagsSchema } from './feature-flags';
import { forwardedHeadersSchema } from './forwarded-headers';
import { webhookUrl } from './webhook-settings';

/**
 * The chat completion request: OpenAI's fields plus Switchyard's. Known fields are typed and
 * checked; unknown top-level fields are kept and passed on to OpenAI-compatible upstreams.
 */
const textPart = z.strictObject({ type: z.literal('text'), text: z.string() });
const imagePart = z.strictObject({
  type: z.literal('image_url'),
  image_url: z.strictObject({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const contentPart = z.discriminatedUnion('type', [textPart, imagePart]);

const toolCall = z.object({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

export const messageSchema = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
    name: z.string().optional(),
    tool_calls: z.array(toolCall).optional(),
    tool_call_id: z.string().optional(),
  })
  .superRefine((message, ctx) => {
    if (message.role === 'tool' && !message.tool_call_id)
      ctx.addIssue({ code: 'custom', message: 'a tool message needs tool_call_id', path: ['tool_call_id'] });
    if (message.role !== 'assistant' && (message.content === undefined || message.content === null)) {
      ctx.addIssue({ code: 'custom', message: `a ${message.role} message needs content`, path: ['content'] });
    }
  });

const toolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

const toolChoice = z.union([z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) })]);

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().min(1),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

export const customHeadersSchema = z.strictObject({
  labels: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  headers: forwardedHeadersSchema.optional(),
  weights: weightsPatch.optional(),
  policies: policiesPatch.optional(),
  feature_flags: featureFlagsSchema.optional(),
});

const logprobsCount = z.number().int().min(0).max(20);

export const completionRequestSchema = z
  .looseObject({
    model: z.string().min(1).max(200).optional(),
    messages: z.array(messageSchema).min(1),
    max_tokens: int4.positive().optional(),
    max_completion_tokens: int4.positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    n: z.number().int().min(1).max(16).optional(),
    logprobs: z.union([z.boolean(), logprobsCount]).optional(),
    best_of: z.number().int().min(1).max(16).optional(),
    stream: z.boolean().default(false),
    stream_options: z.strictObject({ include_usage: z.boolean().optional() }).nullable().optional(),
    stop: z
      .union([z.string(), z.array(z.string()).max(4)])
      .nullable()
      .optional(),
    presence_penalty: z.number().min(-2).max(2).optional(),
    frequency_penalty: z.number().min(-2).max(2).optional(),
    logit_bias: z.record(z.string(), z.number().min(-100).max(100)).optional(),
    tools: z.array(toolSchema).max(128).optional(),
    tool_choice: toolChoice.optional(),
    response_format: responseFormat.optional(),
    seed: z.number().int().optional(),
    user: z.string().optional(),
    reasoning_effort: z
      .enum(REASONING_EFFORTS)
      .nullable()
      .optional()
      .describe(
        'How much a reasoning model thinks before it answers: `reasoning_effort` to OpenAI-compatible models, a thinking budget to Claude and Gemini (docs/reasoning.md). A model that takes no reasoning setting answers without it, and `metadata.warning` says so.',
      ),
    assistant_id: uuid.optional(),
    assistant_version_id: uuid.optional(),
    conversation_id: uuid.optional(),
    parent_request_id: uuid.optional(),
    plugins: z.array(z.enum(PLUGIN_IDS)).optional(),
    images: z.array(z.string()).optional(),
    files: z.array(z.string()).optional(),
    custom_headers: customHeadersSchema.optional(),
    webhook_url: webhookUrl
      .optional()
      .describe("Extra field, only with `Prefer: respond-async`: called when the job ends, instead of the Space's `settings.webhook.url`."),
  })
  .superRefine((request, ctx) => {
    // Not a field of the schema, so it passes through to the upstream as sent; bounded like `logprobs` all the same.
    if (request.top_logprobs !== undefined && !logprobsCount.safeParse(request.top_logprobs).success) {
      ctx.addIssue({ code: 'custom', message: 'expected an integer from 0 to 20', path: ['top_logprobs'], input: request.top_logprobs });
    }
  })
  .meta({ id: 'CompletionRequest' });
export type CompletionRequest = z.infer<typeof completionRequestSchema>;

const annotationSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('url_citation'),
    url_citation: z.object({ start_index: z.number().int(), end_index: z.number().int(), url: z.string(), title: z.string() }),
  }),
  z.object({
    type: z.literal('file_citation'),
    file_citation: z.object({ start_index: z.number().int(), end_index: z.number().int(), file_id: z.string(), filename: z.string(), index: z.number().int() }),
  }),
]);

const searchResultItemSchema = z
  .object({
    index: z.number().int(),
    source: z.enum(['web', 'space']),
    title: z.string(),
    url: z.string().optional(),
    file_id: z.string().optional(),
    file_name: z.string().optional(),
    chunk: z.number().int().optional(),
    score: z.number(),
    snippet: z.string(),
    published_at: z.string().optional(),
  })
  .meta({ id: 'SearchResultItem' });

const artifactItemSchema = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('image'),
      plugin: z.string(),
      mime_type: z.string(),
      url: z.string().optional(),
      b64_json: z.string().optional(),
      size: z.string().optional(),
      revised_prompt: z.string().optional(),
    }),
    z.object({
      type: z.literal('transcript'),
      plugin: z.string(),
      text: z.string(),
      language: z.string().optional(),
      duration_seconds: z.number().optional(),
      source: z.string(),
    }),
    z.object({ type: z.literal('social_post'), plugin: z.string(), network: z.enum(['mastodon', 'bluesky']), url: z.string(), id: z.string() }),
  ])
  .meta({ id: 'ArtifactItem' });

const costs = z.object({ total_tokens: z.number(), prompt_tokens: z.number(), completion_tokens: z.number() });
const candidateScore = z.object({
  model: z.string(),
  provider: z.string(),
  score: z.number(),
  quality: z.number().describe("Predicted probability of a good answer that the decision used (with smart_learn, corrected by the Space's ratings)."),
  offline_quality: z.number().describe("Extra field: the offline router's predicted probability of a good answer."),
  cost: z.number().describe('Estimated USD for this request.'),
  latency: z.number().describe('Expected latency, ms.'),
});

export const completionMetadataSchema = z.object({
  app_id: z.string(),
  model: z.object({ model: z.string(), namespace: z.string(), provider: z.string(), owner: z.string(), at: z.string() }),
  costs,
  cost_savings: costs,
  generated_artifacts: z.object({ items: z.array(artifactItemSchema) }).describe('What plugins made: images, transcripts, social posts.'),
  search_results: z.object({ items: z.array(searchResultItemSchema) }).describe('Sources plugins found; `index` is the number the model cites (`[1]`).'),
  latency: z.number().describe('Milliseconds the model took to answer.'),
  labels: z.record(z.string(), z.unknown()),
  error: z.string(),
  scores: z.object({
    best_models: z.array(z.string()),
    candidates: z.array(candidateScore),
    router: z
      .object({ version: z.string(), kind: z.string(), smart_learn: z.boolean(), explored: z.boolean() })
      .describe("Extra field: the router weights' version, the kind of prompt it saw, whether smart_learn was on and whether this request explored."),
  }),
  score: z.number(),
  temperature: z.number().nullable(),
  max_tokens: z.number().int().nullable(),
  status_code: z.number().int(),
  retries: z.number().int(),
  extra: z
    .record(z.string(), z.unknown())
    .describe(
      '`plugins`: each plugin of the request, why it ran and how it went. `auto_tools` (only when auto_tools is on): `{mode, considered, picked: [{id, score}], skipped: [{id, reason, detail, score}]}`, `reason` one of no_backend, not_allowed, no_searchable_files, below_threshold, declined (docs/plugins/auto-tools-selection.md).',
    ),
  warning: z.string(),
});
export type CompletionMetadata = z.infer<typeof completionMetadataSchema>;

export const completionResponseSchema = z
  .object({
    id: z.string().describe('The id of the request log.'),
    object: z.literal('chat.completion'),
    model: z.string(),
    created: z.number().int(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string().nullable(),
          tool_calls: z.array(toolCall).optional(),
          annotations: z
            .array(annotationSchema)
            .optional()
            .describe('Source markers of the answer mapped to `metadata.search_results` items (web-search always; space-search with the `citations` flag).'),
        }),
        finish_reason: z.string().nullable(),
        logprobs: z.null(),
      }),
    ),
    usage: z.object({
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int().describe('Output tokens, the reasoning ones included (billed as output).'),
      total_tokens: z.number().int(),
      completion_tokens_details: z
        .object({ reasoning_tokens: z.number().int() })
        .optional()
        .describe('Present when the model reported reasoning tokens: the part of `completion_tokens` it spent reasoning.'),
    }),
    metadata: completionMetadataSchema,
  })
  .meta({ id: 'ChatCompletion' });
export type CompletionResponse = z.infer<typeof completionResponseSchema>;
