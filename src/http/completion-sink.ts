import type { Response } from 'express';
import type { AsyncJobRecord } from '../async-jobs/job-record';
import type { WireSink } from '../completions/wire-sink';
import { RESPOND_ASYNC } from '../schemas/chat-completion-job';
import { chatCompletionJobBody } from './formats/chat-completion-job';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  /** Tells nginx-style proxies not to buffer the stream. */
  'x-accel-buffering': 'no',
};

/** Writes a completion as one JSON body. */
export function jsonSink(res: Response): WireSink {
  return {
    chunk: () => undefined,
    comment: () => undefined,
    done: (response) => {
      res.status(200).json(response);
    },
    error: ({ status, body, headers }) => {
      res.set(headers ?? {}).status(status).json(body);
    },
  };
}

/**
 * Writes a completion as OpenAI's server-sent events. Headers go out with the first chunk, so a failure
 * before anything was streamed still answers with a real status and a JSON body.
 */
export function sseSink(res: Response): WireSink {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    res.writeHead(200, SSE_HEADERS);
  };
  return {
    chunk: (data) => {
      start();
      res.write(`data: ${data}\n\n`);
    },
    comment: (text) => {
      start();
      res.write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
    },
    done: () => {
      start();
      res.end('data: [DONE]\n\n');
    },
    error: ({ status, body, headers }) => {
      if (!started) {
        res.set(headers ?? {}).status(status).json(body);
        return;
      }
      res.end(`data: ${JSON.stringify(body)}\n\n`);
    },
  };
}

/**
 * Writes an accepted async job: 202, `Location` of the job, and `Preference-Applied` (RFC 7240). The
 * intake hands over the queued job record (a replayed idempotent answer hands back the same record).
 */
export function acceptedJobSink(res: Response): WireSink {
  return {
    chunk: () => undefined,
    comment: () => undefined,
    done: (accepted) => {
      const record = accepted as AsyncJobRecord;
      res.status(202).set({ location: `/v1/jobs/${record.id}`, 'preference-applied': RESPOND_ASYNC }).json(chatCompletionJobBody(record));
    },
    error: ({ status, body, headers }) => {
      res.set(headers ?? {}).status(status).json(body);
    },
  };
}
