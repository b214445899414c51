import type { Response } from 'express';
import type { CompletionIntake } from '../../completions/completion-intake';
import { completionRequestSchema, completionResponseSchema } from '../../schemas/chat-completions';
import { jsonSink, sseSink } from '../completion-sink';
import { defineRoute, RESPONDED, type Route } from '../route';

/** Aborts when the client goes away before the response is complete. */
function clientGone(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

export function chatCompletionRoutes({ completions }: { completions: CompletionIntake }): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/chat/completions',
      operationId: 'createChatCompletion',
      summary: 'Create a chat completion (routed, with retries and failover)',
      description: [
        "OpenAI's chat completions, answered by the model named in `model` (if it is active in the key's Space), or by the",
        "best available model when `model` is omitted or equals the service's own name. With `stream: true` the answer is",
        "`text/event-stream`: one `data: {chat.completion.chunk}` per delta, a last chunk carrying `usage` and `metadata`, then",
        '`data: [DONE]`. An error after streaming started ends the stream with one `data: {"error": ...}` event.',
        'Optional header `Service-Feature-Flags`: a JSON object of flag names (`auto_tools`, `citations`, `smart_learn`) to "true"/"false".',
      ].join(' '),
      tags: ['Chat'],
      permission: 'completions:create',
      body: completionRequestSchema,
      response: completionResponseSchema,
      status: 200,
      errors: [404, 429, 502, 503, 504],
      handle: async ({ auth, body, req, res }) => {
        await completions.submit({
          auth,
          request: body,
          featureFlagsHeader: req.header('service-feature-flags'),
          signal: clientGone(res),
          setHeaders: (headers) => res.set(headers),
          sink: body.stream ? sseSink(res) : jsonSink(res),
        });
        return RESPONDED;
      },
    }),
  ];
}
