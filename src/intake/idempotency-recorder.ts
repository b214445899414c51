import { SerialisedBody, type WireSink } from '../formats/wire-sink';
import type { StoredAnswer, Withheld } from './idempotency-store';

/** Largest answer kept for replay, in bytes of JSON (or of SSE payloads); a larger one is recorded as not kept. */
export const MAX_KEPT_ANSWER_BYTES = 4 * 1024 * 1024;

/** How a run ended, as far as a repeat of it is concerned. */
export type Outcome = { answer: StoredAnswer } | { withheld: Withheld } | { failed: true };

export interface RecordingOptions {
  stream: boolean;
  /** False at privacy level 2 and 3: no request or response text is held, only that the run succeeded. Asked per reply. */
  keepText(): boolean;
  /** Stores or releases the key; never rejects. The final event reaches the client after it. */
  settle(outcome: Outcome): Promise<void>;
}

export interface RecordingSink {
  sink: WireSink;
  /** Resolves once the final event is settled and forwarded: true, or false when none came (the client left). */
  settled(): Promise<boolean>;
}

/**
 * Wraps the sink the intake writes to. Chunks go to the client at once; the final event (the JSON body,
 * the stream's `[DONE]` or an error) waits for `settle`, so a client that repeats the request right
 * after receiving the answer finds it kept rather than still running, or finds the key free after a failure.
 */
export function recordingSink(inner: WireSink, { stream, keepText, settle }: RecordingOptions): RecordingSink {
  const frames: string[] = [];
  let bytes = 0;
  let tooLarge = false;
  let final: Promise<boolean> | undefined;

  const keep = (data: string) => {
    if (!keepText() || tooLarge) return;
    bytes += Buffer.byteLength(data, 'utf8');
    if (bytes > MAX_KEPT_ANSWER_BYTES) {
      tooLarge = true;
      frames.length = 0;
    } else frames.push(data);
  };
  const finish = (outcome: Outcome, forward: () => void) => {
    final = settle(outcome).then(() => {
      forward();
      return true;
    });
  };

  return {
    sink: {
      chunk: (data) => {
        keep(data);
        inner.chunk(data);
      },
      // Progress of the first run: a replay has nothing in progress.
      comment: (text) => inner.comment(text),
      done: (response) => {
        // Serialised once: counted here, kept as it is (IdempotencyStore) and written as it is (jsonSink).
        const body = !stream && response !== undefined && !(response instanceof SerialisedBody) ? SerialisedBody.of(response) : response;
        if (body instanceof SerialisedBody) keep(body.text);
        const outcome: Outcome = !keepText()
          ? { withheld: 'privacy' }
          : tooLarge
            ? { withheld: 'size' }
            : { answer: stream ? { kind: 'stream', frames } : { kind: 'json', response: body } };
        finish(outcome, () => inner.done(body));
      },
      error: (failure) => finish({ failed: true }, () => inner.error(failure)),
    },
    settled: () => final ?? Promise.resolve(false),
  };
}
