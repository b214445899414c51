import type { Response } from 'express';
import { SerialisedBody, type WireSink } from '../../formats/wire-sink';
import { eventStreamSink } from '../completion-sink';
import { anthropicErrorBody } from './anthropic-errors';

const TYPE_FIRST = '{"type":"';

/**
 * Anthropic names each SSE event after its payload's `type` (`event: message_start` for
 * `{"type":"message_start",...}`), so a payload alone says which event it is.
 */
function eventNameOf(data: string): string {
  // The writer puts `type` first: read it off the text rather than parse the payload (the last one holds the metadata).
  if (data.startsWith(TYPE_FIRST)) {
    const end = data.indexOf('"', TYPE_FIRST.length);
    if (end > TYPE_FIRST.length) return data.slice(TYPE_FIRST.length, end);
  }
  const parsed = JSON.parse(data) as { type?: unknown };
  return typeof parsed.type === 'string' ? parsed.type : 'message';
}

/** Writes a message as one JSON body; errors in Anthropic's shape. */
export function anthropicJsonSink(res: Response): WireSink {
  return {
    chunk: () => undefined,
    comment: () => undefined,
    done: (message) => {
      if (message instanceof SerialisedBody) res.status(200).type('application/json').send(message.text);
      else res.status(200).json(message);
    },
    error: ({ status, body, headers }) => {
      res
        .set(headers ?? {})
        .status(status)
        .json(anthropicErrorBody({ status, message: body.error.message }));
    },
  };
}

/**
 * Writes Anthropic's server-sent events: `event: <type>` then `data: <payload>`. A failure before
 * anything was streamed answers with a real status and a JSON error body; after that an error is one
 * `event: error`, as Anthropic sends an overload mid-stream.
 */
export function anthropicSseSink(res: Response): WireSink {
  return eventStreamSink(res, {
    frame: (data) => `event: ${eventNameOf(data)}\ndata: ${data}\n\n`,
    end: '',
    errorBody: ({ status, body }) => anthropicErrorBody({ status, message: body.error.message }),
    failedEnd: (errorBody) => `event: error\ndata: ${JSON.stringify(errorBody)}\n\n`,
  });
}
