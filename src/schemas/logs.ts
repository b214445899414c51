import { z } from 'zod';
import { dateTime, pageQuery, uuid } from './common';
import { checkRange, logRangeFields } from './log-filters';
import { modelSchema } from './models';

/** A query flag: exactly `true` or `false`. */
const trueOrFalse = z.enum(['true', 'false']).transform((flag) => flag === 'true');
const count = z.number().int();
const dollars = z.number().describe('USD.');
const savings = z.number().describe('USD saved against the benchmark model.');

/** What a sub-request's log is: one step its parent request took to get the final answer. */
export const logStepSchema = z
  .object({
    kind: z.enum(['model', 'plugin']).describe("`model`: a call to a model (its `model`, `latency`, tokens and cost are the call's); `plugin`: a plugin run."),
    plugin: z
      .string()
      .nullable()
      .describe(
        "The plugin's id (`web-search`, `space-search`, ...) for a plugin run; null for a model call. The sources a search found are the request's `response.metadata.search_results`.",
      ),
  })
  .meta({ id: 'LogStep' });
export type LogStepView = z.input<typeof logStepSchema>;

/** Every Log field of the contract except `parent` and `children`; also the shape of a parent or child. */
export const logCoreSchema = z
  .object({
    id: uuid.describe('Id of the request.'),
    conversation_id: uuid.nullable(),
    parent_request_id: uuid.nullable(),
    parent_id: uuid.nullable().describe('Set when this log is a sub-request used to get the final answer.'),
    app_id: uuid.nullable(),
    idp_id: z.string().nullable(),
    response: z.unknown().describe('The EngineResponse as stored.'),
    timestamp: z.number().int().describe('Milliseconds since the epoch.'),
    good_answer: z.boolean().nullable().describe('Rating: true good, false bad, null none.'),
    feedback: z.string().nullable(),
    prompt_tokens: count,
    completion_tokens: count,
    total_tokens: count,
    prompt_tokens_cost: dollars,
    completion_tokens_cost: dollars,
    total_tokens_cost: dollars,
    prompt_tokens_cost_savings: savings,
    completion_tokens_cost_savings: savings,
    total_tokens_cost_savings: savings,
    costs_incurred: z
      .boolean()
      .describe(
        "A request's log: true (it carries the request's total: model tokens, plus plugin costs in the total). A step's child log (model call or plugin run): whether that step cost anything; its cost is already in its parent's total.",
      ),
    namespace: z.string().nullable().describe("Provider's model name that answered."),
    payload: z.unknown().describe('The CompletionRequest as sent.'),
    privacy_level: z.number().int().min(1).max(2).describe('1 everything logged; 2 request and response masked. Level 3 logs are never stored nor shown.'),
    prompt: z.string().nullable(),
    request_type: z.enum(['completions', 'chat_completions', 'embeddings']).nullable(),
    response_text: z.string(),
    status_code: count.describe('Status of the request to the model; -1 when unknown.'),
    is_test: z.boolean().describe('True when made from a sandbox Space.'),
    added_on: dateTime.nullable(),
    latency: z
      .number()
      .nonnegative()
      .nullable()
      .describe(
        'Milliseconds the model took to answer. For a request that failed or was cancelled before any answer, the milliseconds from its arrival until it ended. null when nothing was measured (an embeddings request that failed, logs written before this was recorded).',
      ),
    is_saved_for_later: z.boolean(),
    comment_count: count,
    model: modelSchema.nullable().describe('The model that answered; null when unknown.'),
    collections: z.unknown().nullable().describe('Array of AppCollectionRequest as stored, or null.'),
    labels: z.record(z.string(), z.unknown()).describe('Extension of the contract: `custom_headers.labels` of the request.'),
    step: logStepSchema
      .nullable()
      .describe(
        "Extension of the contract: what a sub-request is, a model call or a plugin run (its own `latency` is that step's time); null for a request's own log.",
      ),
  })
  .meta({ id: 'LogCore' });
export type LogCoreView = z.input<typeof logCoreSchema>;

export const logSchema = logCoreSchema
  .extend({
    parent: logCoreSchema.nullable().describe('The final log this one is a sub-request of, without its own parent and children.'),
    children: z
      .array(logCoreSchema)
      .nullable()
      .describe(
        "Sub-requests, oldest first, without their own parent and children; null unless `include=children`. A request answered by one model call is one stored log: its call is shown as its one step, under the log's own `id`.",
      ),
  })
  .meta({ id: 'Log' });
export type LogView = z.input<typeof logSchema>;

export const logQuery = z.object({
  include: z.enum(['children']).optional().describe("'children' loads the sub-requests into `children`."),
});

export const logListQuery = pageQuery
  .extend({
    app_id: uuid.optional().describe('Only logs of this Space.'),
    conversation_id: uuid.optional().describe('Only logs of this conversation.'),
    good_answer: trueOrFalse.optional().describe('Only logs rated good (true) or bad (false).'),
    include_children: trueOrFalse.default(false).describe('Also list sub-requests; by default only top-level logs are listed.'),
    ...logRangeFields,
  })
  .superRefine(checkRange);
export type LogListQuery = z.output<typeof logListQuery>;

export const rateLogBody = z
  .strictObject({
    good_answer: z.boolean().nullable().describe('true good, false bad, null removes the rating.'),
    feedback: z.string().max(5000).optional().describe('Text accompanying the rating; omitted keeps the current text.'),
  })
  .meta({ id: 'LogRating' });

export const saveLogBody = z.strictObject({ is_saved_for_later: z.boolean() }).meta({ id: 'LogSaved' });
