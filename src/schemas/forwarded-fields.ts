import { ApiError } from '../errors/api-error';
import { completionRequestSchema } from './chat-completions';

/**
 * Top-level fields of a chat-completions body that Switchyard does not read itself but passes on, as
 * sent, to OpenAI-compatible upstreams (Anthropic's and Gemini's adapters have no place for them):
 * OpenAI's own fields that the router has no use for, and the sampling fields that vLLM, Ollama,
 * Together, Fireworks and OpenRouter take. A Space adds its own with `settings.forward_fields`; any
 * other unknown field is refused with 400 `unknown_field`, as OpenAI refuses it.
 */
export const BUILT_IN_FORWARDED_FIELDS: readonly string[] = [
  'parallel_tool_calls',
  'verbosity',
  'service_tier',
  'store',
  'metadata',
  'modalities',
  'audio',
  'prediction',
  'prompt_cache_key',
  'safety_identifier',
  'top_logprobs',
  'web_search_options',
  'top_k',
  'min_p',
  'repetition_penalty',
];

const BUILT_IN: ReadonlySet<string> = new Set(BUILT_IN_FORWARDED_FIELDS);

/** The fields of the chat-completions schema: Switchyard reads them itself, so a Space cannot list them. */
export const COMPLETION_REQUEST_FIELDS: ReadonlySet<string> = new Set(Object.keys(completionRequestSchema.shape));

/**
 * The first top-level field of a chat-completions body that is neither in the schema nor forwarded
 * (built in, or listed by the Space), or null. One pass over the body's keys: nothing more for a body
 * with none.
 */
export function unforwardedField(body: Record<string, unknown>, spaceFields: readonly string[] | undefined): string | null {
  // for-in rather than Object.keys: no array of the keys for each request (the body is a plain object).
  for (const key in body) {
    if (!COMPLETION_REQUEST_FIELDS.has(key) && !BUILT_IN.has(key) && !spaceFields?.includes(key)) return key;
  }
  return null;
}

/**
 * The refusal of a chat-completions body with a top-level field that is neither Switchyard's nor
 * forwarded: 400 `unknown_field` naming it, as OpenAI answers an unrecognized argument; null when there
 * is none. Checked where the Space is known (the intake, a batch line as it runs), before anything is
 * queued or called.
 */
export function unforwardedFieldError(body: Record<string, unknown>, spaceFields: readonly string[] | undefined): ApiError | null {
  const field = unforwardedField(body, spaceFields);
  if (field === null) return null;
  return new ApiError(
    'unknown_field',
    `Unrecognized field '${field}'. Fields Switchyard does not read are passed to the provider only when they are provider fields it knows or the Space lists in 'settings.forward_fields'.`,
    field,
  );
}
