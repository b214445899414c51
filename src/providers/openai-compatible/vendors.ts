import type { ProviderId } from '../../config/schema';

/** A request rule for some of a vendor's models (its own model names). */
export interface ModelRule {
  match: RegExp;
  /** Where `max_tokens` goes for these models. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Request fields these models refuse with 400, dropped before sending. */
  drop?: readonly string[];
}

/**
 * One OpenAI-compatible vendor, as data. Everything that differs from OpenAI's own chat completions
 * is a field here; the request, response and stream translators read them and nothing else.
 */
export interface OpenAiCompatibleVendor {
  id: ProviderId | typeof GENERIC_OPENAI_COMPATIBLE;
  /**
   * How stream usage arrives: `stream_options` asks for OpenAI's trailing usage chunk; `unasked`
   * means the vendor puts usage on a chunk by itself and refuses `stream_options`.
   */
  streamUsage: 'stream_options' | 'unasked';
  /**
   * What proves a stream complete: `done` needs `data: [DONE]`; `done_or_finish` also accepts a clean
   * end after every choice has a finish_reason (self-hosted servers that omit [DONE]).
   */
  streamEnd: 'done' | 'done_or_finish';
  /** Request fields the vendor refuses, dropped from the body whatever their source (known or extra). */
  unsupported: readonly string[];
  /** Request fields the vendor names differently: our name → theirs. */
  renamed: Readonly<Record<string, string>>;
  /** The role `developer` messages are sent as. */
  developerRole: 'developer' | 'system';
  /** Whether `messages[].name` is sent or dropped. */
  messageNames: 'keep' | 'drop';
  /** Tool call ids as given, or rewritten to the 9 alphanumerics the vendor insists on. */
  toolCallIds: 'as_is' | 'alphanumeric_9';
  /** Fixed extra headers (never credentials). */
  headers: Readonly<Record<string, string>>;
  /** Per-model rules; the first match applies. */
  modelRules: readonly ModelRule[];
}

const defaults: Omit<OpenAiCompatibleVendor, 'id'> = {
  streamUsage: 'stream_options',
  streamEnd: 'done',
  unsupported: [],
  renamed: {},
  developerRole: 'system',
  messageNames: 'keep',
  toolCallIds: 'as_is',
  headers: {},
  modelRules: [],
};

/**
 * Any other server that speaks OpenAI's chat completions (LM Studio, llama.cpp, TGI, LiteLLM...): only
 * custom models use it, each with its own base URL, so it has no `<PROVIDER>_*` configuration.
 */
export const GENERIC_OPENAI_COMPATIBLE = 'openai-compatible';

const vendor = (id: OpenAiCompatibleVendor['id'], quirks: Partial<Omit<OpenAiCompatibleVendor, 'id'>> = {}): OpenAiCompatibleVendor =>
  Object.freeze({ ...defaults, ...quirks, id });

/** Sampling fields OpenAI's reasoning models refuse ("Unsupported parameter"). */
const REASONING_REFUSES = ['temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs', 'top_logprobs'];

/** OpenAI's reasoning and newer models take `max_completion_tokens` and refuse `max_tokens`. */
const OPENAI_MODEL_RULES: ModelRule[] = [
  { match: /^o\d/, maxTokensField: 'max_completion_tokens', drop: REASONING_REFUSES },
  { match: /^gpt-5(?!.*-chat)/, maxTokensField: 'max_completion_tokens', drop: REASONING_REFUSES },
  { match: /^gpt-5/, maxTokensField: 'max_completion_tokens' },
];

/** Every OpenAI-compatible vendor Switchyard ships; a new one is usually one line. */
export const OPENAI_COMPATIBLE_VENDORS: readonly OpenAiCompatibleVendor[] = [
  vendor('openai', { developerRole: 'developer', modelRules: OPENAI_MODEL_RULES }),
  // Mistral validates strictly (422 extra_forbidden), names the seed `random_seed`, sends stream usage
  // on its finish chunk unasked, and accepts only 9-alphanumeric tool call ids.
  vendor('mistral', {
    streamUsage: 'unasked',
    unsupported: ['max_completion_tokens', 'logit_bias', 'logprobs', 'top_logprobs', 'user'],
    renamed: { seed: 'random_seed' },
    messageNames: 'drop',
    toolCallIds: 'alphanumeric_9',
  }),
  // Groq answers 400 to these; `n` may only be 1. Older deployments put stream usage in `x_groq.usage`.
  vendor('groq', { unsupported: ['logprobs', 'logit_bias', 'top_logprobs', 'n'], messageNames: 'drop' }),
  vendor('together'),
  vendor('deepseek'),
  vendor('fireworks'),
  vendor('xai'),
  vendor('openrouter', { headers: { 'X-Title': 'Switchyard' } }),
  vendor('ollama', { streamEnd: 'done_or_finish' }),
  vendor('vllm', { streamEnd: 'done_or_finish' }),
];

/** Kept out of the list above: that list is the configured providers', this one serves custom models only. */
export const GENERIC_OPENAI_COMPATIBLE_VENDOR: OpenAiCompatibleVendor = vendor(GENERIC_OPENAI_COMPATIBLE, { streamEnd: 'done_or_finish' });
