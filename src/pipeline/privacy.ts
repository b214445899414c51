import type { Json } from '../domain/json';
import type { CompletionJob } from '../queue/payloads';

export type { Json };

/** What stands in for masked text at privacy level 2. */
export const MASK = '[masked]';

/** Keys whose string values (or arrays of strings) carry what the user or the model said. */
const CONTENT_KEYS = new Set([
  'content',
  'text',
  'arguments',
  'url',
  'refusal',
  'images',
  'files',
  'instructions',
  // What plugins found or made for the request: search results, transcripts (and their source URL or file name), images.
  'snippet',
  'title',
  'query',
  'file_name',
  'filename',
  'b64_json',
  'revised_prompt',
  'source',
  // A plugin's failure as text (`metadata.error`, `plugins[].error`) may name the request's URL, host or file;
  // pre-selection's `plugins[].reason` quotes the prompt's words that matched.
  'error',
  'reason',
]);

/**
 * Keys of objects whose every value is masked, whatever its name: `custom_headers.headers` values are
 * not conversation text, but may carry user data or a credential of the client's.
 */
const OPAQUE_KEYS = new Set(['headers', 'forwardedHeaders']);

/**
 * A copy with every piece of conversation text replaced by MASK, keeping the structure (roles, tool
 * names, parameters, usage), so a log at privacy level 2 still shows what kind of request it was.
 */
export function maskContent(value: unknown, key?: string): Json {
  if (typeof value === 'string') return key !== undefined && CONTENT_KEYS.has(key) ? MASK : value;
  if (Array.isArray(value)) return value.map((item) => maskContent(item, key));
  if (value !== null && typeof value === 'object') {
    const opaque = key !== undefined && OPAQUE_KEYS.has(key);
    return Object.fromEntries(Object.entries(value).map(([inner, item]) => [inner, opaque && typeof item === 'string' ? MASK : maskContent(item, inner)]));
  }
  return (value ?? null) as Json;
}

/** A job as it may rest in Redis once it has ended, at a level that masks content: its request and payload masked like its log. */
export function maskedJob(job: CompletionJob): CompletionJob {
  return { ...job, request: maskContent(job.request) as unknown as CompletionJob['request'], payload: maskContent(job.payload) as CompletionJob['payload'] };
}
