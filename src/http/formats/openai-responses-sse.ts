import type { Response } from 'express';
import type { WireSink } from '../../completions/wire-sink';
import { SSE_HEADERS } from '../completion-sink';

/** The event name of a serialised event, whose first key is its `type`. */
const TYPE_FIRST = /^\{"type":"([^"]+)"/;

/**
 * Writes OpenAI's typed server-sent events (`event: <type>` then `data: {...}`), as the Responses API
 * streams them; no `[DONE]` at the end. Headers go out with the first event, so a failure before
 * anything was streamed still answers with a real status and a JSON body; after that the formatter has
 * already written `response.failed`, and the stream just ends.
 */
export function typedSseSink(res: Response): WireSink {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    res.writeHead(200, SSE_HEADERS);
  };
  return {
    chunk: (data) => {
      start();
      const type = TYPE_FIRST.exec(data)?.[1];
      res.write(type ? `event: ${type}\ndata: ${data}\n\n` : `data: ${data}\n\n`);
    },
    comment: (text) => {
      start();
      res.write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
    },
    done: () => {
      start();
      res.end();
    },
    error: ({ status, body, headers }) => {
      if (!started) {
        res.set(headers ?? {}).status(status).json(body);
        return;
      }
      res.end();
    },
  };
}
