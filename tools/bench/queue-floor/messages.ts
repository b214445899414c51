/**
 * What the queue floor's API and worker say to each other (tools/bench/queue-floor): the job a request
 * becomes, and the replies the worker publishes on the API process's channel.
 */
export interface FloorJob {
  id: string;
  /** The API process's reply channel. */
  replyTo: string;
  stream: boolean;
  /** The client's chat completion body, as it came. */
  body: Record<string, unknown>;
}

/** `chunks`: raw `data:` payloads of the upstream's stream; `done`: the whole JSON answer (empty for a stream). */
export type FloorReply = { id: string } & (
  { type: 'chunks'; chunks: string[] } | { type: 'done'; body: string } | { type: 'error'; status: number; body: string }
);

export const FLOOR_QUEUE = 'floor';

export function floorReplyChannel(prefix: string, instance: string): string {
  return `${prefix}:floor-replies:${instance}`;
}
