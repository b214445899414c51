import type { CompletionJob } from '../queue/payloads';

/** What stands in for masked text at privacy level 2. */
export const MASK = '[masked]';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keys whose string values (or arrays of strings) carry what the user or the model said. */
const CONTENT_KEYS = new Set([
  'content', 'text', 'arguments', 'url', 'refusal', 'images', 'files', 'instructions',
  // What plugins found or made for the request: search results, transcripts (and their source URL or file name), images.
  'snippet', 'title', 'query', 'file_name', 'filename', 'b64_json', 'revised_prompt', 'source',
  // A plugin's failure as text (`metadata.error`, `plugins[].error`) may name the request's URL, host or file;
  // pre-selection's `plugins[].reason` quotes the prompt's words that matched.
  'error', 'reason',
]);

/**
 * Keys of objects whose every value is masked, whatever its name: `custom_headers.headers` values are
 * not conversation text, but may carry user data or a credential of the client's.
 */
const OPAQUE_KEYS = new Set(['headers']);

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

/** Each request masked once: its log row and its job in Redis keep the same masked copy. */
const maskedRequests = new WeakMap<CompletionJob['request'], Json>();

/** A request with its conversation text masked (maskContent), worked out once per request object. */
export function maskedRequest(request: CompletionJob['request']): Json {
  let masked = maskedRequests.get(request);
  if (masked === undefined) {
    masked = maskContent(request);
    maskedRequests.set(request, masked);
  }
  return masked;
}

/** A job as it may rest in Redis once it has ended, past privacy level 1: its request masked like its log. */
export function maskedJob(job: CompletionJob): CompletionJob {
  return { ...job, request: maskedRequest(job.request) as unknown as CompletionJob['request'] };
}
