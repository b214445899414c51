import type { CompletionSink } from '../../domain/completion-sink';
import type { WireSink } from '../../formats/wire-sink';
import type { CompletionFailure } from '../../domain/completion';
import { errorBodyOf } from '../../errors/api-error';
import type { ResponseObject } from '../../schemas/responses-object';
import type { CompletionMetadata } from '../../schemas/chat-completions';
import { finishedResponse, pendingResponse, responseBodyOf, type ResponseEcho, type ResponseIdentity } from './openai-responses';
import { ResponseStreamWriter } from './openai-responses-stream';

export interface ResponsesSinkOptions {
  stream: boolean;
  echo: ResponseEcho;
  /**
   * Keeps the finished response (`store`, or a continuation that must be recorded) before the client
   * is told it is complete, so a `GET` or `previous_response_id` right after it finds it.
   */
  keep?(response: ResponseObject): Promise<void>;
  /** Told when the response failed (nothing is kept then). */
  failed?(): void;
}

/** What the client is told when the finished response could not be kept. */
const NOT_KEPT: CompletionFailure = {
  status: 500,
  type: 'server_error',
  code: 'internal_error',
  message: 'The response could not be stored; send the request again (or with store: false).',
  param: null,
};

/**
 * A completion written as OpenAI's Responses API: one `response` object, or its typed events ending
 * with `response.completed` (`response.failed` when it fails after the stream started; before, the
 * error is an ordinary JSON answer with its status). Switchyard's metadata is the object's extra
 * `switchyard` field; plugin steps are SSE comments (`: step {...}`).
 */
export function openAiResponsesSink(wire: WireSink, identity: ResponseIdentity, options: ResponsesSinkOptions): CompletionSink {
  const pending = pendingResponse(identity, options.echo);
  const writer = new ResponseStreamWriter(identity.requestId, (data) => wire.chunk(data));
  let created = false;
  let written = false;
  /** The model named so far: the request's, else the one answering. */
  let model = pending.model;
  const start = (answering: string) => {
    created = true;
    model ||= answering;
    writer.started({ ...pending, model });
  };

  const fail = (failure: CompletionFailure) => {
    options.failed?.();
    if (!options.stream || !written) return wire.error({ status: failure.status, body: errorBodyOf(failure), headers: failure.headers });
    if (!created) start('');
    const output = writer.end();
    writer.emit('response.failed', { response: { ...pending, model, status: 'failed', output, error: { code: failure.code, message: failure.message } } });
    wire.error({ status: failure.status, body: errorBodyOf(failure) });
  };

  const complete = (response: ResponseObject) => {
    if (!options.stream) return wire.done(response);
    writer.emit(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
    wire.done(undefined);
  };

  return {
    event: (event) => {
      if (!options.stream) return;
      written = true;
      if (event.type === 'step') return wire.comment(`step ${JSON.stringify(event.step)}`);
      if (!created) start(event.model);
      const choice = event.choices.find((c) => c.index === 0);
      if (choice) writer.delta(choice);
    },
    done: ({ answer, metadata: metadataJson }) => {
      // The Responses API keeps the response and nests it in events: its metadata is read as an object here.
      const metadata = JSON.parse(metadataJson) as CompletionMetadata;
      const response = options.stream
        ? finishedResponse(pending, { answer, metadata, output: writer.end(), finish: writer.finish })
        : responseBodyOf(pending, { answer, metadata });
      if (options.stream && !created) {
        written = true;
        start(answer.model.model);
      }
      if (!options.keep) return complete(response);
      options.keep(response).then(
        () => complete(response),
        () => fail(NOT_KEPT),
      );
    },
    error: fail,
  };
}
