import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimAnswer, SimConversation, SimUsage } from './answer';

export class SimBadRequest extends Error {}

export interface RouteMatch {
  /** Model named in the URL (Gemini puts it there). */
  model?: string;
  /** Streaming chosen by the URL (Gemini's `:streamGenerateContent`). */
  stream?: boolean;
  /** OpenAI's `POST /v1/embeddings` rather than a chat call. */
  embeddings?: boolean;
}

export interface AnswerOptions {
  /** Drop the connection after this many content chunks. */
  cutAfter?: number;
  /** Streams only: wait this long between content chunks, in ms (a slow model generating). */
  chunkDelayMs?: number;
}

/** One provider's wire format, as the simulator speaks it. */
export interface Dialect {
  /** URL prefix under the simulator, e.g. `/openai`. */
  prefix: string;
  /** The route after the prefix, or null when this dialect has no such route. */
  match(method: string, path: string): RouteMatch | null;
  /** The API key the request carries, from the header this provider uses. */
  apiKey(req: IncomingMessage): string | undefined;
  /** Throws SimBadRequest for a body the real provider would refuse with 400. */
  parse(body: unknown, route: RouteMatch): SimConversation;
  sendAnswer(res: ServerResponse, exchange: { conversation: SimConversation; answer: SimAnswer; usage: SimUsage }, options: AnswerOptions): Promise<void>;
  sendError(res: ServerResponse, error: { status: number; message: string; retryAfterSeconds?: number }): void;
}
