import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import type { ApiError } from '../../errors/api-error';
import { apiErrorFromZod } from '../../errors/zod-error';
import { findInputProblem, problemError } from '../../schemas/input-guard';
import type { BatchLineError } from '../../schemas/batches';
import { completionRequestSchema } from '../../schemas/chat-completions';

/** A line that passed validation: its request body as the client wrote it (the worker parses it again). */
export interface ValidLine {
  line: number;
  customId: string;
  body: Record<string, unknown>;
}

export interface InputValidation {
  /** Lines with a request (blank lines are skipped, and keep their number). */
  total: number;
  /** Empty when every line is valid; at most MAX_LISTED_ERRORS. */
  errors: BatchLineError[];
}

/** Validation stops listing (and reading) after this many errors: enough to fix a file by. */
export const MAX_LISTED_ERRORS = 100;
/** Valid lines are handed over this many at a time (one insert each). */
const CHUNK_LINES = 1000;

type Problem = Omit<BatchLineError, 'line'>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first problem of the body as a chat-completions request, with `param` under `body.`. */
function bodyProblem(body: unknown): Problem | null {
  if (!isObject(body)) return { code: 'invalid_body', message: "'body' must be a JSON object: the chat-completions request.", param: 'body' };
  const unstorable = findInputProblem(body);
  const error: ApiError | null = unstorable ? problemError(unstorable, 'body') : null;
  const parsed = error ? null : completionRequestSchema.safeParse(body, { reportInput: true });
  const failure = error ?? (parsed && !parsed.success ? apiErrorFromZod(parsed.error) : null);
  if (failure) return { code: 'invalid_body', message: failure.message, param: failure.param && failure.param !== 'body' ? `body.${failure.param}` : 'body' };
  if (body.stream === true)
    return { code: 'invalid_body', message: "Streaming is not supported in a batch: 'body.stream' must be false or absent.", param: 'body.stream' };
  return null;
}

/** What is wrong with one parsed line, or null. */
function lineProblem(value: unknown, { endpoint, seen }: { endpoint: string; seen: Set<string> }): Problem | null {
  if (!isObject(value)) return { code: 'invalid_request', message: 'Each line must be a JSON object.', param: null };
  if (typeof value.custom_id !== 'string' || value.custom_id === '')
    return { code: 'invalid_custom_id', message: "'custom_id' must be a non-empty string.", param: 'custom_id' };
  if (seen.has(value.custom_id))
    return { code: 'duplicate_custom_id', message: `The custom_id '${value.custom_id}' is used on an earlier line; each must be unique.`, param: 'custom_id' };
  if (value.method !== 'POST') return { code: 'invalid_method', message: "'method' must be 'POST'.", param: 'method' };
  if (value.url !== endpoint) return { code: 'invalid_url', message: `'url' must be the batch's endpoint, '${endpoint}'.`, param: 'url' };
  return bodyProblem(value.body);
}

function parseLine(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return null;
  }
}

/**
 * Reads a batch input as a stream and checks every line before any model is called: JSON, a unique
 * string `custom_id`, `method: POST`, `url` equal to the endpoint, a valid chat-completions `body`
 * (not streamed). Valid lines are handed to `keep` in chunks until the first problem; after it only
 * problems are collected.
 */
export async function validateInput(input: Readable, options: { endpoint: string; keep(lines: ValidLine[]): Promise<void> }): Promise<InputValidation> {
  const seen = new Set<string>();
  const errors: BatchLineError[] = [];
  let chunk: ValidLine[] = [];
  let total = 0;
  let line = 0;
  const reader = createInterface({ input, crlfDelay: Infinity });
  for await (const text of reader) {
    line += 1;
    if (text.trim() === '') continue;
    total += 1;
    const parsed = parseLine(text);
    const problem = parsed
      ? lineProblem(parsed.value, { endpoint: options.endpoint, seen })
      : { code: 'invalid_json', message: 'The line is not valid JSON.', param: null };
    if (problem) {
      errors.push({ ...problem, line });
      if (errors.length >= MAX_LISTED_ERRORS) break;
      continue;
    }
    const request = parsed?.value as { custom_id: string; body: Record<string, unknown> };
    seen.add(request.custom_id);
    if (errors.length > 0) continue;
    chunk.push({ line, customId: request.custom_id, body: request.body });
    if (chunk.length >= CHUNK_LINES) {
      await options.keep(chunk);
      chunk = [];
    }
  }
  reader.close();
  input.destroy();
  if (errors.length === 0) await options.keep(chunk);
  return { total, errors };
}
