import type { Request } from 'express';
import type { Submission } from '../../intake/completion-intake';
import { ApiError } from '../../errors/api-error';
import {
  countTokensRequestSchema,
  countTokensResponseSchema,
  messageResponseSchema,
  messagesRequestSchema,
  type MessagesRequest,
} from '../../schemas/anthropic-messages';
import type { ApiServices } from '../api-services';
import { chatRequestOf, misplacedBlock } from '../formats/anthropic-request';
import { anthropicMessagesSink } from '../formats/anthropic-stream';
import { reasoningOf, thinkingBudgetProblem } from '../formats/anthropic-thinking';
import { inputTokensOf } from '../formats/anthropic-token-count';
import { anthropicJsonSink, anthropicSseSink } from '../formats/anthropic-wire-sink';
import { departureOf } from '../client-gone';
import { bodyBytesOf } from '../middleware/json-body';
import { defineRoute, RESPONDED, type Route } from '../route';

/** As Anthropic: a request without `anthropic-version` is a 400 (any value is taken: there is one version). */
function requireVersion(req: Request): void {
  if (!req.header('anthropic-version')) throw new ApiError('missing_field', 'anthropic-version: header is required', 'anthropic-version');
}

/** Anthropic's clients read the request's id from `request-id` (the SDK's `_request_id`): the log id, as `x-switchyard-log-id`. */
function withRequestId(headers: Record<string, string>): Record<string, string> {
  const logId = headers['x-switchyard-log-id'];
  return logId === undefined ? headers : { ...headers, 'request-id': logId };
}

/** Checks the schema cannot express: which blocks each role may send. */
function checkBlocks(body: Pick<MessagesRequest, 'messages'>): void {
  const misplaced = misplacedBlock(body);
  if (misplaced) throw new ApiError('invalid_value', misplaced.message, misplaced.param);
}

/** As Anthropic: a thinking budget must stay under `max_tokens`. */
function checkThinking(body: Pick<MessagesRequest, 'thinking' | 'max_tokens'>): void {
  const problem = thinkingBudgetProblem(body);
  if (problem) throw new ApiError('invalid_value', problem, 'thinking.budget_tokens');
}

const DESCRIPTION = [
  "Anthropic's Messages API over the same completion jobs as `POST /v1/chat/completions` (routing, plugins, retries and",
  'failover, one log with cost and savings), for `@anthropic-ai/sdk` and other Anthropic clients. The key goes in `x-api-key`',
  "(or `Authorization: Bearer`); `anthropic-version` is required. `model` is any model of the Space or the service's own name",
  "for automatic choice, as for chat. `thinking` (and `output_config.effort`) set the model's reasoning, in its own provider's",
  'terms; a model that takes none answers without it and `metadata.warning` says so; thinking blocks are not returned.',
  "Switchyard's `metadata` is an extra field of the message, and of the stream's",
  '`message_delta` event. With `stream: true`: `message_start`, `ping`, content blocks (`text_delta`, `input_json_delta`),',
  '`message_delta`, `message_stop`; plugin steps are SSE comments; an error after the stream started is one `event: error`.',
  'Every error on this route is in Anthropic\'s shape, `{"type":"error","error":{"type","message"}}`, with the status listed.',
].join(' ');

type MessagesDeps = Pick<ApiServices, 'completions'>;

export function messagesRoutes({ completions }: MessagesDeps): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/messages',
      operationId: 'createMessage',
      summary: 'Create a message (Anthropic Messages API, routed)',
      description: DESCRIPTION,
      headers: [
        { name: 'x-api-key', description: 'The API key (instead of `Authorization: Bearer`).' },
        { name: 'anthropic-version', description: 'Required, as by Anthropic (e.g. `2023-06-01`).' },
        { name: 'Service-Feature-Flags', description: 'JSON object of flag names to "true"/"false" for this request.' },
      ],
      tags: ['Anthropic'],
      permission: 'completions:create',
      errorDialect: 'anthropic',
      body: messagesRequestSchema,
      response: messageResponseSchema,
      status: 200,
      errors: [404, 429, 502, 503, 504],
      handle: async ({ auth, body, req, res }) => {
        requireVersion(req);
        checkBlocks(body);
        checkThinking(body);
        const submission: Submission = {
          auth,
          request: chatRequestOf(body),
          featureFlagsHeader: req.header('service-feature-flags'),
          departure: departureOf(res),
          setHeaders: (headers) => res.set(withRequestId(headers)),
          sink: body.stream ? anthropicSseSink(res) : anthropicJsonSink(res),
          format: (wire, identity) => anthropicMessagesSink(wire, identity, { stream: body.stream }),
          httpRequestId: String(req.id),
          bodyBytes: bodyBytesOf(req),
        };
        // Set apart from the literal: a request without thinking (the usual one) adds nothing.
        const reasoning = reasoningOf(body);
        if (reasoning) submission.reasoning = reasoning;
        await completions.submit(submission);
        return RESPONDED;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/messages/count_tokens',
      operationId: 'countMessageTokens',
      summary: 'Count the input tokens of a message request (estimate)',
      description:
        "An estimate with OpenAI's o200k tokenizer (Claude's is not public), counted the way the router counts a prompt. Nothing is routed or logged.",
      headers: [{ name: 'anthropic-version', description: 'Required, as by Anthropic.' }],
      tags: ['Anthropic'],
      permission: 'completions:create',
      errorDialect: 'anthropic',
      body: countTokensRequestSchema,
      response: countTokensResponseSchema,
      status: 200,
      handle: async ({ body, req }) => {
        requireVersion(req);
        checkBlocks(body);
        return { input_tokens: inputTokensOf(body) };
      },
    }),
  ];
}
