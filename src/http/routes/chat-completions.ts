import type { AsyncRequest, Submission } from '../../intake/completion-intake';
import { IDEMPOTENCY_HEADER, IdempotentCompletions } from '../../intake/idempotency';
import { ApiError } from '../../errors/api-error';
import { chatCompletionJobSchema, RESPOND_ASYNC } from '../../schemas/chat-completion-job';
import { completionRequestSchema, completionResponseSchema, type CompletionRequest } from '../../schemas/chat-completions';
import type { ApiServices } from '../api-services';
import { acceptedJobSink, jsonSink, sseSink } from '../completion-sink';
import { openAiChatSink } from '../../formats/openai-chat';
import { METADATA_PLACEMENTS, type MetadataPlacement } from '../../formats/completion-metadata';
import { preferenceTokens } from '../prefer-header';
import { departureOf } from '../client-gone';
import { bodyBytesOf } from '../middleware/json-body';
import { defineRoute, RESPONDED, type Route } from '../route';

/** A running claim outlives the longest completion by this much, in ms, before a dead process's claim lapses. */
const CLAIM_MARGIN_MS = 60_000;

/** `Prefer: respond-async` (RFC 7240), checked against the body; undefined for a synchronous request. */
function asyncRequestOf(preferHeader: string | undefined, body: CompletionRequest): AsyncRequest | undefined {
  // Most requests send no `Prefer`: its tokens are read only when it is there.
  if (!preferHeader || !preferenceTokens(preferHeader).has(RESPOND_ASYNC)) {
    if (body.webhook_url !== undefined)
      throw new ApiError('invalid_request', "'webhook_url' is only for async requests: send it with the header 'Prefer: respond-async'.", 'webhook_url');
    return undefined;
  }
  if (body.stream)
    throw new ApiError(
      'invalid_value',
      "'stream' cannot be true with 'Prefer: respond-async': an async job's answer is read whole from GET /v1/jobs/{id}.",
      'stream',
    );
  return { webhookUrl: body.webhook_url ?? null };
}

type Format = Submission['format'];

/** An edge formatter with fixed options, made once: a request's own closure over its options cost an allocation for every request. */
function formatWith(options: { stream: boolean; includeUsage: boolean; placement: MetadataPlacement }): Format {
  return (wire, identity) => openAiChatSink(wire, identity, options);
}

/** By `stream`, then by `stream_options.include_usage === true`. */
function formatsFor(placement: MetadataPlacement): Record<'whole' | 'stream', readonly [Format, Format]> {
  return {
    whole: [formatWith({ stream: false, includeUsage: false, placement }), formatWith({ stream: false, includeUsage: true, placement })],
    stream: [formatWith({ stream: true, includeUsage: false, placement }), formatWith({ stream: true, includeUsage: true, placement })],
  };
}

/** By where the metadata goes (`x-switchyard-metadata`), then as `formatsFor`. */
const FORMATS = new Map(METADATA_PLACEMENTS.map((placement) => [placement, formatsFor(placement)]));

const METADATA_HEADER = 'x-switchyard-metadata';

/** Where the answer carries the metadata: the header's value, the spec's `metadata` without it; another value is a 400 naming the header. */
function placementOf(header: string | undefined): MetadataPlacement {
  if (header === undefined) return 'metadata';
  const placement = METADATA_PLACEMENTS.find((known) => known === header.trim().toLowerCase());
  if (placement) return placement;
  throw new ApiError(
    'invalid_value',
    `Invalid value for header '${METADATA_HEADER}': '${header}'. Use one of: ${METADATA_PLACEMENTS.join(', ')} (docs/sdk-metadata.md).`,
    METADATA_HEADER,
  );
}

function formatOf(body: CompletionRequest, placement: MetadataPlacement): Format {
  const usage = body.stream_options?.include_usage === true ? 1 : 0;
  const formats = FORMATS.get(placement) as ReturnType<typeof formatsFor>;
  return (body.stream ? formats.stream : formats.whole)[usage];
}

type ChatDeps = Pick<ApiServices, 'completions' | 'idempotency' | 'config' | 'logger'>;

export function chatCompletionRoutes({ completions, idempotency, config, logger }: ChatDeps): Route[] {
  const idempotent = new IdempotentCompletions({
    intake: completions,
    store: idempotency,
    runningTtlMs: config.completionTimeoutMs + CLAIM_MARGIN_MS,
    logger,
  });
  return [
    defineRoute({
      method: 'post',
      path: '/v1/chat/completions',
      operationId: 'createChatCompletion',
      summary: 'Create a chat completion (routed, with retries and failover)',
      description: [
        "OpenAI's chat completions, answered by the model named in `model` (if it is active in the key's Space), or by the",
        "best available model when `model` is omitted or equals the service's own name. With `stream: true` the answer is",
        '`text/event-stream`: one `data: {chat.completion.chunk}` per delta, each with at least one choice; the chunk with the',
        "`finish_reason` comes last and carries `metadata` and `usage` (with `stream_options.include_usage`, OpenAI's last chunk",
        'with empty `choices` follows, and carries the `usage` instead); then `data: [DONE]`. Plugin steps are SSE comments',
        '(`: step {...}`). An error after streaming started ends the stream with one `data: {"error": ...}` event.',
        'Optional header `Service-Feature-Flags`: a JSON object of flag names (`auto_tools`, `citations`, `smart_learn`) to "true"/"false".',
        '\n\nOptional header `Idempotency-Key` (1-255 printable ASCII characters, no spaces; else 400 naming it): within 24 h,',
        'a repeat with the same key, the same body and the same `Service-Feature-Flags` in the same Space gets the first answer',
        'again (same status and body, streamed again if it was streamed, same `x-switchyard-log-id`, plus `Idempotent-Replayed: true`)',
        'without running again; with another body it answers 422 `idempotency_key_reused`; while the first still runs, 409',
        '`idempotency_request_in_progress` with `Retry-After`. Only a successful answer is kept: a first request that fails (refused',
        'before it ran, any 4xx or 5xx, a timeout) or whose client left frees the key for a retry. At privacy level 2 and 3 no answer',
        'is kept: a repeat after completion answers 409 `idempotency_answer_not_kept` (as it does for an answer above 4 MiB);',
        'raising a Space to level 2 or 3 drops its kept answers at once.',
        '\n\nWith the header `Prefer: respond-async` (RFC 7240) the request is queued and answered at once with 202, a',
        '`chat.completion.job` (status `queued`), `Location: /v1/jobs/{id}` and `Preference-Applied: respond-async`; read the',
        "job at `GET /v1/jobs/{id}`, or name a `webhook_url` (else the Space's `settings.webhook.url` is used) to be called",
        'when it ends. `stream: true` is refused with it (400 naming `stream`), and so is a Space or request at privacy level 3',
        '(400 naming `Prefer`). An `Idempotency-Key` works as for synchronous calls (a repeat answers the same 202 and job).',
      ].join(' '),
      headers: [
        { name: 'Prefer', description: '`respond-async`: queue the request and answer 202 with a `chat.completion.job` (see `GET /v1/jobs/{job_id}`).' },
        { name: 'Idempotency-Key', description: 'A repeat within 24 h gets the first answer again without running (see above).' },
        { name: 'Service-Feature-Flags', description: 'JSON object of flag names to "true"/"false" for this request.' },
        {
          name: METADATA_HEADER,
          description:
            "Where the answer carries Switchyard's metadata: `metadata` (default, as this schema shows), `switchyard` (a top-level `switchyard` field instead, leaving `metadata` as OpenAI's SDKs type it), or `none` (left out; `GET /v1/logs/{id}` has it). Another value: 400 naming the header.",
        },
      ],
      alternative: {
        status: 202,
        description: 'Accepted (`Prefer: respond-async`): the job, queued.',
        response: chatCompletionJobSchema,
        headers: { Location: 'Where the job is read: `/v1/jobs/{id}`.', 'Preference-Applied': '`respond-async`.' },
      },
      tags: ['Chat'],
      permission: 'completions:create',
      body: completionRequestSchema,
      response: completionResponseSchema,
      status: 200,
      errors: [404, 409, 422, 429, 502, 503, 504],
      handle: async ({ auth, body, req, res }) => {
        const respondAsync = asyncRequestOf(req.header('prefer'), body);
        const submission: Submission = {
          auth,
          request: body,
          featureFlagsHeader: req.header('service-feature-flags'),
          departure: departureOf(res),
          setHeaders: (headers) => res.set(headers),
          sink: respondAsync ? acceptedJobSink(res) : body.stream ? sseSink(res) : jsonSink(res),
          format: formatOf(body, placementOf(req.header(METADATA_HEADER))),
          httpRequestId: String(req.id),
          bodyBytes: bodyBytesOf(req),
        };
        // Set apart from the literal: a synchronous request (the usual one) adds nothing, not even an empty object to spread.
        if (respondAsync) submission.respondAsync = respondAsync;
        const key = req.header(IDEMPOTENCY_HEADER);
        if (key === undefined) await completions.submit(submission);
        else await idempotent.submit(submission, { key, body: req.body as unknown });
        return RESPONDED;
      },
    }),
  ];
}
