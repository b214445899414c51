import type { ChatRequest } from '../../domain/chat';
import { effortOf } from '../../domain/reasoning';
import { outgoingMessages } from './messages';
import type { ModelRule, OpenAiCompatibleVendor } from './vendors';

export type CallMode = 'whole' | 'stream';

/** What to POST where: the URL, headers and JSON body of one chat-completions call. */
export interface OutgoingCall {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface CallTarget {
  baseUrl: string;
  /** Empty for keyless local servers (Ollama, vLLM): no Authorization header then. */
  apiKey: string;
}

/**
 * Fields Switchyard sets itself: a client's `extra` never overrides them (a `max_completion_tokens`
 * left in `extra` is used as the limit when `max_tokens` is unset, under the field the model takes).
 */
const OWN_FIELDS = new Set(['model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'reasoning_effort']);

/** Request fields copied as they are when set (the wire format is ours). */
const PLAIN_FIELDS = [
  'temperature',
  'top_p',
  'n',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'tools',
  'tool_choice',
  'response_format',
  'seed',
  'user',
] as const satisfies readonly (keyof ChatRequest)[];

const ruleFor = (vendor: OpenAiCompatibleVendor, model: string): ModelRule | undefined => vendor.modelRules.find((rule) => rule.match.test(model));

/** The fields a vendor refuses, with those its model's rule drops: made once per vendor and rule, not per call. */
const refusedByRule = new WeakMap<OpenAiCompatibleVendor, Map<ModelRule | undefined, ReadonlySet<string>>>();

function refusedFields(vendor: OpenAiCompatibleVendor, rule: ModelRule | undefined): ReadonlySet<string> {
  let byRule = refusedByRule.get(vendor);
  if (!byRule) refusedByRule.set(vendor, (byRule = new Map()));
  let refused = byRule.get(rule);
  if (!refused) byRule.set(rule, (refused = new Set([...vendor.unsupported, ...(rule?.drop ?? [])])));
  return refused;
}

/** Drops what the vendor or model refuses, then renames what the vendor names differently (keys keep their order). */
function adapted(body: Record<string, unknown>, vendor: OpenAiCompatibleVendor, rule: ModelRule | undefined): Record<string, unknown> {
  const refused = refusedFields(vendor, rule);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (value === undefined || refused.has(key)) continue;
    out[vendor.renamed[key] ?? key] = value;
  }
  return out;
}

/** The JSON body for a chat-completions call to this vendor. */
export function requestBody(vendor: OpenAiCompatibleVendor, request: ChatRequest, mode: CallMode): Record<string, unknown> {
  const rule = ruleFor(vendor, request.model);
  const body: Record<string, unknown> = {};
  // The client's extra fields first, less those Switchyard sets itself.
  const { extra } = request;
  if (extra) for (const key of Object.keys(extra)) if (!OWN_FIELDS.has(key)) body[key] = extra[key];
  for (const field of PLAIN_FIELDS) if (request[field] !== undefined) body[field] = request[field];
  body.model = request.model;
  body.messages = outgoingMessages(request.messages, vendor);
  const maxTokens = request.max_tokens ?? request.extra?.max_completion_tokens;
  if (maxTokens !== undefined) body[rule?.maxTokensField ?? 'max_tokens'] = maxTokens;
  // The effort as asked (a budget as the effort it falls in); without either, the model reasons as it does by default.
  if (request.reasoning !== undefined) body.reasoning_effort = effortOf(request.reasoning);
  body.stream = mode === 'stream';
  if (mode === 'stream' && vendor.streamUsage === 'stream_options') body.stream_options = { include_usage: true };
  return adapted(body, vendor, rule);
}

/** The whole call: `<baseUrl>/chat/completions`, bearer auth when there is a key, the vendor's headers. */
export function outgoingCall(vendor: OpenAiCompatibleVendor, request: ChatRequest, target: CallTarget & { mode: CallMode }): OutgoingCall {
  const headers: Record<string, string> = { ...vendor.headers };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  if (target.mode === 'stream') headers.accept = 'text/event-stream';
  return { url: `${target.baseUrl.replace(/\/+$/, '')}/chat/completions`, headers, body: requestBody(vendor, request, target.mode) };
}
