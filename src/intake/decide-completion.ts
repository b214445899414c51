import type { ChatMessage, ChatRequest, ResponseFormat } from '../domain/chat';
import { privacyPolicyFor, type PrivacyPolicy } from '../domain/privacy-policy';
import type { Reasoning } from '../domain/reasoning';
import type { RequestedCompletion, SpaceDefaults, StoredReferences } from '../domain/requested-completion';
import type { FeatureFlags } from '../domain/space-policies';
import type { WireBody } from '../queue/payloads';
import type { CompletionRequest } from '../schemas/chat-completions';
import { COMPLETION_REQUEST_FIELDS } from '../schemas/forwarded-fields';
import { mergeFeatureFlags } from '../schemas/feature-flag-header';
import { mergePolicies } from '../schemas/stored-space-config';
import type { SpaceContext } from '../store/space-context';

/** What the intake decides for a request once, and its job carries: the worker decides none of it again. */
export interface DecidedCompletion {
  request: RequestedCompletion;
  /** What the request's level allows (its job carries the level, `privacy.level`). */
  privacy: PrivacyPolicy;
  /** The wire body less its messages (the request's own messages are `request.chat.messages`): the log's payload. */
  payload: WireBody;
}

/** The privacy policy a request runs under in this Space: the stricter of the Space's level and its own. */
export function privacyOf(space: Pick<SpaceContext, 'policies'>, request: Pick<CompletionRequest, 'custom_headers'>): PrivacyPolicy {
  return privacyPolicyFor(space.policies.privacy_level, request.custom_headers?.policies?.privacy_level);
}

/** The fields the intake let through beyond the schema's own (built-in or the Space's forwarded fields): they pass to OpenAI-compatible upstreams. */
function extraFields(request: CompletionRequest): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> | undefined;
  for (const key of Object.keys(request)) {
    if (COMPLETION_REQUEST_FIELDS.has(key)) continue;
    extra ??= {};
    extra[key] = request[key];
  }
  return extra;
}

/**
 * The request's messages as domain messages: an assistant turn may leave `content` out on the wire
 * (OpenAI allows it beside tool calls), which the domain spells as null.
 */
function chatMessagesOf(messages: CompletionRequest['messages']): ChatMessage[] {
  // Most requests give every message its content: those are domain messages as they are, and are not copied.
  if (messages.every(hasContent)) return messages;
  return messages.map((message) => ({ ...message, content: message.content ?? null }));
}

function hasContent(message: CompletionRequest['messages'][number]): message is CompletionRequest['messages'][number] & ChatMessage {
  return message.content !== undefined;
}

function stopOf(stop: CompletionRequest['stop']): string[] | undefined {
  if (stop === undefined || stop === null || stop === '') return undefined;
  return typeof stop === 'string' ? [stop] : stop.filter((s) => s !== '');
}

/** What the request (or its Space's settings) names in the database; undefined when nothing (most requests). */
function storedReferences(request: CompletionRequest, space: SpaceContext): StoredReferences | undefined {
  const { assistant_id: assistantId, assistant_version_id: versionId, conversation_id: conversationId, parent_request_id: parentId } = request;
  const spaceAssistant = space.settings.assistant_id;
  if (!assistantId && !versionId && !conversationId && !parentId && !spaceAssistant) return undefined;
  return {
    assistantId: assistantId ?? spaceAssistant ?? null,
    // The Space's version goes with the Space's assistant only.
    assistantVersionId: versionId ?? (assistantId ? null : space.settings.assistant_version_id),
    assistantNamedBy: versionId ? 'assistant_version_id' : assistantId ? 'assistant_id' : null,
    conversationId: conversationId ?? null,
    parentRequestId: parentId ?? null,
  };
}

/** The Space's defaults for what the request leaves unset, or undefined when it sets none (most Spaces). */
function spaceDefaults({ instructions, max_tokens, temperature }: SpaceContext['settings']): SpaceDefaults | undefined {
  return instructions === null && max_tokens === null && temperature === null ? undefined : { instructions, max_tokens, temperature };
}

/** Chat's `reasoning_effort` as the domain's reasoning; undefined (nothing made) when the request leaves it out, as most do. */
function effortReasoning(effort: CompletionRequest['reasoning_effort']): Reasoning | undefined {
  return effort === undefined || effort === null ? undefined : { effort };
}

function chatOf(request: CompletionRequest): Omit<ChatRequest, 'model'> {
  return {
    messages: chatMessagesOf(request.messages),
    max_tokens: request.max_tokens ?? request.max_completion_tokens,
    temperature: request.temperature,
    top_p: request.top_p,
    n: request.n,
    stop: stopOf(request.stop),
    presence_penalty: request.presence_penalty,
    frequency_penalty: request.frequency_penalty,
    logit_bias: request.logit_bias,
    tools: request.tools?.map((tool) => ({ ...tool, function: { ...tool.function, strict: tool.function.strict ?? undefined } })),
    tool_choice: request.tool_choice,
    response_format: request.response_format as ResponseFormat | undefined,
    seed: request.seed,
    user: request.user,
    extra: extraFields(request),
  };
}

export interface DecideInputs {
  space: SpaceContext;
  /** The policy the request runs under in the Space (`privacyOf`), worked out when it was admitted. */
  privacy: PrivacyPolicy;
  /** The `Service-Feature-Flags` header's flags (`custom_headers.feature_flags` wins over them). */
  headerFlags: FeatureFlags;
  /** The model name that asks for automatic selection (AUTO_MODEL_NAME). */
  autoModelName: string;
  /** The reasoning the route decided from its own dialect (Anthropic's `thinking`), standing in for `reasoning_effort`. */
  reasoning?: Reasoning;
}

/**
 * A validated wire body turned into the domain request, once, against the Space it runs in: the Space's
 * weights, policies and flags merged with the request's overrides. The level it runs at is `privacy`'s,
 * which its job carries apart. What is empty is left out of the request (its job carries it as JSON).
 */
export function decideCompletion(wire: CompletionRequest, { space, privacy, headerFlags, autoModelName, reasoning }: DecideInputs): DecidedCompletion {
  const overrides = wire.custom_headers ?? {};
  const { messages: _messages, ...payload } = wire;
  const { settings } = space;
  // The request's level is the job's own (privacyLevel), not a policy among the others.
  const { privacy_level: _spaceLevel, ...policies } = mergePolicies(space.policies, overrides.policies);
  const chat = chatOf(wire);
  // Set apart from the literal: a request that says nothing of reasoning (most) carries nothing for it.
  const asked = reasoning ?? effortReasoning(wire.reasoning_effort);
  if (asked) chat.reasoning = asked;
  const request: RequestedCompletion = { chat, weights: { ...space.weights, ...overrides.weights }, policies };
  if (wire.model !== undefined && wire.model !== autoModelName) request.model = wire.model;
  if (wire.stream) request.stream = true;
  // Set apart from the literal, as the job carries them only when there are any.
  setUnlessEmpty(request, 'flags', mergeFeatureFlags({ ...settings.feature_flags, ...headerFlags }, overrides.feature_flags));
  setUnlessEmpty(request, 'labels', overrides.labels);
  setUnlessEmpty(request, 'forwardedHeaders', overrides.headers);
  setUnlessEmpty(request, 'plugins', wire.plugins);
  setUnlessEmpty(request, 'images', wire.images);
  setUnlessEmpty(request, 'files', wire.files);
  const stored = storedReferences(wire, space);
  if (stored) request.stored = stored;
  const defaults = spaceDefaults(settings);
  if (defaults) request.defaults = defaults;
  // Parsed from JSON and validated: every value of the body is JSON.
  return { request, privacy, payload: payload as WireBody };
}

type ListOrRecord = readonly unknown[] | Record<string, unknown>;

/** Sets `request[field]` to `value` unless it is absent or empty (no item, no key): readers take an absent one as empty. */
function setUnlessEmpty<K extends 'flags' | 'labels' | 'forwardedHeaders' | 'plugins' | 'images' | 'files'>(
  request: RequestedCompletion,
  field: K,
  value: RequestedCompletion[K],
): void {
  if (value !== undefined && !isEmpty(value)) request[field] = value;
}

function isEmpty(value: ListOrRecord): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}
