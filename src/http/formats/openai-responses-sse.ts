import type { Response } from 'express';
import type { WireSink } from '../../formats/wire-sink';
import { eventStreamSink } from '../completion-sink';

/** The event name of a serialised event, whose first key is its `type`. */
const TYPE_FIRST = /^\{"type":"([^"]+)"/;

/**
 * Writes OpenAI's typed server-sent events (`event: <type>` then `data: {...}`), as the Responses API
 * streams them; no `[DONE]` at the end. A failure before anything was streamed answers with a real
 * status and a JSON body; after that the formatter has already written `response.failed`, and the
 * stream just ends.
 */
export function typedSseSink(res: Response): WireSink {
  return eventStreamSink(res, {
    frame: (data) => {
      const type = TYPE_FIRST.exec(data)?.[1];
      return type ? `event: ${type}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
    },
    end: '',
    errorBody: ({ body }) => body,
    failedEnd: () => '',
  });
}
