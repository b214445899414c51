import type { Submission } from '../../intake/completion-intake';
import { IDEMPOTENCY_HEADER } from '../../intake/idempotency';
import { ApiError } from '../../errors/api-error';
import { responseIdParams, responsesRequestSchema } from '../../schemas/responses';
import { deletedResponseSchema, responseObjectSchema, type ResponseObject } from '../../schemas/responses-object';
import { inputItemListSchema, inputItemsQuery } from '../../schemas/responses-input-items';
import type { ApiServices } from '../api-services';
import type { ResponsePlan } from '../../services/responses/response-service';
import { jsonSink } from '../completion-sink';
import { echoOf } from '../formats/openai-responses';
import { inputItemView } from '../formats/openai-responses-input-items';
import { chatRequestOf } from '../formats/openai-responses-input';
import { openAiResponsesSink } from '../formats/openai-responses-sink';
import { typedSseSink } from '../formats/openai-responses-sse';
import { bodyBytesOf } from '../middleware/json-body';
import { defineRoute, RESPONDED, type Route } from '../route';
import { departureOf } from '../client-gone';

const CREATE_DESCRIPTION = [
  "OpenAI's Responses API over the same completion jobs as chat completions (routing, plugins, retries and failover, one",
  "request log with cost and savings). `model` may be left out (or be the service's name) for automatic choice. `input` is",
  'a string or a list of items: messages (`input_text`, `output_text`, `input_image` by URL), `function_call`,',
  '`function_call_output` and `item_reference` (an output item of a stored response). Only function tools. With',
  "`stream: true` the answer is OpenAI's typed events (`event:` + `data:` with `sequence_number`), from `response.created`",
  'to `response.completed` (`response.incomplete` when cut at `max_output_tokens`; `response.failed` on an error after the',
  "stream started). Switchyard's metadata (chosen model, costs, savings, scores) is the extra field `switchyard` of the",
  "response object; the request log's id is the `x-switchyard-log-id` header.",
  '\n\n`store` (default true) keeps the response for `GET /v1/responses/{id}` and for `previous_response_id`, which continues',
  'it in the conversation its chain lives in (the earlier turns are replayed; `instructions` and `tools` are not carried',
  'over). A response can be continued once (400 naming `previous_response_id` otherwise). At privacy level 2 and 3 no',
  'content is kept: `store` defaults to false there and `store: true` is refused (400 naming `store`). Fields OpenAI knows',
  'that this service does not do (`background: true`, `conversation`, `prompt`, `include` values, `truncation: auto`,',
  'built-in tools) are refused with 400 naming them; unknown fields too, and the `Idempotency-Key` header (chat completions only).',
].join(' ');

type ResponsesDeps = Pick<ApiServices, 'completions' | 'responses' | 'logger'>;

export function responsesRoutes({ completions, responses, logger }: ResponsesDeps): Route[] {
  /** Keeps a finished response; a failure is logged here, and the client told by the formatter. */
  const keep = async (plan: ResponsePlan, response: ResponseObject) => {
    try {
      await responses.keep(plan, response);
    } catch (err) {
      logger.error({ err, response_id: response.id }, 'response not stored');
      throw err;
    }
  };
  const discard = (plan: ResponsePlan) => {
    responses.discard(plan).catch((err: unknown) => logger.warn({ err }, 'conversation of a failed response not deleted'));
  };
  return [
    defineRoute({
      method: 'post',
      path: '/v1/responses',
      operationId: 'createResponse',
      summary: 'Create a model response (OpenAI Responses API)',
      description: CREATE_DESCRIPTION,
      headers: [{ name: 'Service-Feature-Flags', description: 'JSON object of flag names to "true"/"false" for this request.' }],
      tags: ['Responses'],
      permission: 'completions:create',
      body: responsesRequestSchema,
      response: responseObjectSchema,
      status: 200,
      errors: [404, 429, 502, 503, 504],
      handle: async ({ auth, body, req, res }) => {
        if (req.header(IDEMPOTENCY_HEADER) !== undefined) {
          // A repeat could not replay safely here: it would start or continue a chain a second time.
          throw new ApiError('invalid_request', `'${IDEMPOTENCY_HEADER}' is supported on POST /v1/chat/completions only.`, IDEMPOTENCY_HEADER);
        }
        const items = await responses.resolveReferences(auth, body.input);
        const plan = await responses.plan(auth, {
          chat: chatRequestOf(body, items),
          store: body.store,
          previousResponseId: body.previous_response_id ?? null,
          input: items,
        });
        const stream = body.stream === true;
        const submission: Submission = {
          auth,
          request: plan.chat,
          featureFlagsHeader: req.header('service-feature-flags'),
          departure: departureOf(res),
          setHeaders: (headers) => res.set(headers),
          sink: stream ? typedSseSink(res) : jsonSink(res),
          format: (wire, identity) =>
            openAiResponsesSink(wire, identity, {
              stream,
              echo: echoOf(body, { store: plan.store }),
              ...(plan.record ? { keep: (response) => keep(plan, response), failed: () => discard(plan) } : {}),
            }),
          httpRequestId: String(req.id),
          bodyBytes: bodyBytesOf(req),
        };
        try {
          await completions.submit(submission);
        } catch (err) {
          // Refused before it ran (rate limit, Space): the sink never heard of it.
          if (plan.record) discard(plan);
          throw err;
        }
        return RESPONDED;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/responses/{response_id}',
      operationId: 'getResponse',
      summary: 'Retrieve a stored response',
      description:
        "A response created with `store` (the default) by a key of this organization (and of this key's Space, for a Space key); 404 otherwise, and once deleted.",
      tags: ['Responses'],
      permission: 'completions:create',
      params: responseIdParams,
      response: responseObjectSchema,
      status: 200,
      errors: [404],
      handle: async ({ auth, params }) => responses.get(auth, params.response_id),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/responses/{response_id}/input_items',
      operationId: 'listResponseInputItems',
      summary: 'List the input items of a stored response',
      description:
        "The items of the response's `input` as it was sent (a string input is one user message; `item_reference`s are listed as the items they named), not the earlier turns of its chain nor `instructions`. An item keeps the id it was sent with; one sent without gets `msg_`, `fc_` or `fco_` + the response's hex + `_in<n>`. Newest first unless `order=asc`; `after` / `before` take an item id. 404 as for `GET /v1/responses/{id}`; a response stored before input items were kept lists none.",
      tags: ['Responses'],
      permission: 'completions:create',
      params: responseIdParams,
      query: inputItemsQuery,
      response: inputItemListSchema,
      status: 200,
      errors: [404],
      handle: async ({ auth, params, query }) => {
        const page = await responses.inputItems(auth, params.response_id, query);
        return { ...page, data: page.data.map(inputItemView) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/responses/{response_id}',
      operationId: 'deleteResponse',
      summary: 'Delete a stored response',
      description:
        'Deletes the stored response: its content is dropped, `GET` answers 404 and it can no longer be continued. The request log stays, as for any request (its retention and privacy level apply).',
      tags: ['Responses'],
      permission: 'completions:create',
      params: responseIdParams,
      response: deletedResponseSchema,
      status: 200,
      errors: [404],
      handle: async ({ auth, params }) => responses.delete(auth, params.response_id),
    }),
  ];
}
