import type { Response } from 'express';
import type { WireSink } from '../../completions/wire-sink';
import { anthropicErrorBody } from './anthropic-errors';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  /** Tells nginx-style proxies not to buffer the stream. */
  'x-accel-buffering': 'no',
};

/**
 * Anthropic names each SSE event after its payload's `type` (`event: message_start` for
 * `{"type":"message_start",...}`), so a payload alone says which event it is.
 */
function eventNameOf(data: string): string {
  const parsed = JSON.parse(data) as { type?: unknown };
  return typeof parsed.type === 'string' ? parsed.type : 'message';
}

/** Writes a message as one JSON body; errors in Anthropic's shape. */
export function anthropicJsonSink(res: Response): WireSink {
  return {
    chunk: () => undefined,
    comment: () => undefined,
    done: (message) => {
      res.status(200).json(message);
    },
    error: ({ status, body, headers }) => {
      res.set(headers ?? {}).status(status).json(anthropicErrorBody({ status, message: body.error.message }));
    },
  };
}

/**
 * Writes Anthropic's server-sent events: `event: <type>` then `data: <payload>`. Headers go out with the
 * first event, so a failure before anything was streamed still answers with a real status and a JSON
 * error body; after that an error is one `event: error`, as Anthropic sends an overload mid-stream.
 */
export function anthropicSseSink(res: Response): WireSink {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    res.writeHead(200, SSE_HEADERS);
  };
  return {
    chunk: (data) => {
      start();
      res.write(`event: ${eventNameOf(data)}\ndata: ${data}\n\n`);
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
      const anthropic = anthropicErrorBody({ status, message: body.error.message });
      if (!started) {
        res.set(headers ?? {}).status(status).json(anthropic);
        return;
      }
      res.end(`event: error\ndata: ${JSON.stringify(anthropic)}\n\n`);
    },
  };
}
