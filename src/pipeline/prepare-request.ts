import { lastUserText, type ChatMessage, type ChatRequest, type ResponseFormat } from '../domain/chat';
import { ApiError } from '../errors/api-error';
import { mergeFeatureFlags, type FeatureFlags } from '../schemas/feature-flag-header';
import type { PluginTrigger } from '../domain/completion';
import type { PluginId } from '../plugins/types';
import type { CompletionJob } from '../queue/payloads';
import type { Policies, Weights } from '../schemas/apps';
import { assistantConfigSchema, type AssistantConfig } from '../schemas/assistants';
import type { CompletionRequest } from '../schemas/chat-completions';
import { COMPLETION_REQUEST_FIELDS } from '../schemas/forwarded-fields';
import { mergePolicies } from '../schemas/stored-space-config';
import type { CompletionSources } from '../store/completion-sources';
import { turnsToMessages } from './conversation-turns';
import type { SpaceContext } from './space-context';
import { readOnce } from './space-memo';

/** A request with the Space's, the assistant's and the conversation's contributions merged in. */
export interface PreparedCompletion {
  /** `model` is filled in per attempt with the provider's name for the model. */
  chat: Omit<ChatRequest, 'model'>;
  /** The model the caller (or the assistant) named; null asks for automatic selection. */
  requestedModel: string | null;
  weights: Weights;
  policies: Policies;
  flags: FeatureFlags;
  labels: Record<string, string | number | boolean>;
  /** Extra HTTP headers for every upstream call (`custom_headers.headers`, checked at the edge). */
  forwardedHeaders: Record<string, string>;
  /** Plugins the request or its assistant named (each once; `legacy-file-search` is space-search's old id). */
  plugins: { id: PluginId; trigger: Extract<PluginTrigger, 'requested' | 'assistant'> }[];
  /** The request's last user turn: what search plugins look up. */
  query: string;
  stream: boolean;
}

/** The fields the intake let through beyond the schema's own (built-in or the Space's forwarded fields): they pass to OpenAI-compatible upstreams. */
function extraFields(request: CompletionRequest): Record<string, unknown> | undefined {
  const extra = Object.fromEntries(Object.entries(request).filter(([key]) => !COMPLETION_REQUEST_FIELDS.has(key)));
  return Object.keys(extra).length > 0 ? extra : undefined;
}

async function assistantOf(job: CompletionJob, space: SpaceContext, sources: CompletionSources): Promise<AssistantConfig | null> {
  const assistantId = job.request.assistant_id ?? space.settings.assistant_id;
  if (!assistantId && job.request.assistant_version_id) throw ApiError.notFound('Assistant', 'assistant_version_id');
  if (!assistantId) return null;
  const versionId = job.request.assistant_version_id ?? (job.request.assistant_id ? null : space.settings.assistant_version_id);
  const found = await assistantConfigOf(space, { assistantId, versionId }, sources);
  // An assistant (or version) the request names is one of its Space's, or unknown: another Space's answers alike.
  const named = job.request.assistant_version_id ? 'assistant_version_id' : job.request.assistant_id ? 'assistant_id' : null;
  if (!found && named) throw ApiError.notFound('Assistant', named);
  // The Space's own setting names a deleted assistant: its configuration is at fault, not the request.
  if (!found) throw new ApiError('invalid_value', 'No such assistant (or version) in this Space.', 'settings.assistant_id');
  return found.config;
}

/**
 * An assistant's configuration, read and parsed once per Space snapshot: every write of an assistant
 * bumps its Space's stamp (AssistantService), so a snapshot's copy is never older than the request.
 */
function assistantConfigOf(space: SpaceContext, { assistantId, versionId }: { assistantId: string; versionId: string | null }, sources: CompletionSources): Promise<{ config: AssistantConfig | null } | null> {
  return readOnce(space, `assistant:${assistantId}:${versionId ?? 'newest'}`, async () => {
    const found = await sources.assistantConfig(space.id, assistantId, versionId);
    if (!found) return null;
    const parsed = assistantConfigSchema.nullable().safeParse(found.config);
    return { config: parsed.success ? parsed.data : null };
  });
}

/** A settled read's value, or its error thrown. */
function valueOf<T>(read: PromiseSettledResult<T>): T {
  if (read.status === 'rejected') throw read.reason;
  return read.value;
}

async function historyOf(job: CompletionJob, space: SpaceContext, sources: CompletionSources): Promise<ChatMessage[]> {
  const conversationId = job.request.conversation_id;
  if (!conversationId) return [];
  if (!(await sources.conversationExists(space.id, conversationId))) throw ApiError.notFound('Conversation', 'conversation_id');
  return turnsToMessages(await sources.history(conversationId));
}

/** `parent_request_id` names a request of the caller's organization, readable as `GET /v1/logs/{id}` reads it. */
async function checkParent(job: CompletionJob, sources: CompletionSources): Promise<void> {
  const parentId = job.request.parent_request_id;
  if (parentId && !(await sources.requestExists(job.orgId, parentId))) throw ApiError.notFound('Log', 'parent_request_id');
}

/** Whether the request (or its Space) names nothing stored: no assistant, conversation or parent request to read. */
function namesNothingStored(job: CompletionJob, space: SpaceContext): boolean {
  const { request } = job;
  return !(request.assistant_id ?? space.settings.assistant_id) && !request.assistant_version_id && !request.conversation_id && !request.parent_request_id;
}

/** What a request naming nothing stored reads: shared by every such request, so frozen. */
const NOTHING_STORED: { assistant: null; history: readonly ChatMessage[] } = Object.freeze({ assistant: null, history: Object.freeze([]) });

/**
 * What the request names, read at once. Most requests name nothing and skip this: the three reads and
 * their settling made a dozen promises each time.
 */
async function readNamed(job: CompletionJob, space: SpaceContext, sources: CompletionSources): Promise<{ assistant: AssistantConfig | null; history: readonly ChatMessage[] }> {
  const reads = await Promise.allSettled([assistantOf(job, space, sources), historyOf(job, space, sources), checkParent(job, sources)]);
  const [assistant, history] = [valueOf(reads[0]), valueOf(reads[1]), valueOf(reads[2])];
  return { assistant, history };
}

/**
 * The request's messages as domain messages: an assistant turn may leave `content` out on the wire
 * (OpenAI allows it beside tool calls), which the domain spells as null.
 */
export function chatMessagesOf(messages: CompletionRequest['messages']): ChatMessage[] {
  // Most requests give every message its content: those are domain messages as they are, and are not copied.
  if (messages.every(hasContent)) return messages;
  return messages.map((message) => ({ ...message, content: message.content ?? null }));
}

function hasContent(message: CompletionRequest['messages'][number]): message is CompletionRequest['messages'][number] & ChatMessage {
  return message.content !== undefined;
}

/** System instructions go first unless the request brings its own. */
function withInstructions(messages: ChatMessage[], instructions: string | null | undefined): ChatMessage[] {
  const hasSystem = messages.some((m) => m.role === 'system' || m.role === 'developer');
  return instructions && !hasSystem ? [{ role: 'system', content: instructions }, ...messages] : messages;
}

/** Earlier turns go after the leading system messages and before the new ones. */
function withHistory(messages: ChatMessage[], history: readonly ChatMessage[]): ChatMessage[] {
  if (history.length === 0) return messages;
  const leading = messages.findIndex((m) => m.role !== 'system' && m.role !== 'developer');
  const split = leading === -1 ? messages.length : leading;
  return [...messages.slice(0, split), ...history, ...messages.slice(split)];
}

function stopOf(stop: CompletionRequest['stop']): string[] | undefined {
  if (stop === undefined || stop === null || stop === '') return undefined;
  return typeof stop === 'string' ? [stop] : stop.filter((s) => s !== '');
}

/** Named plugins, the request's own first; an id named twice (or under its old name) runs once. */
function namedPlugins(request: CompletionRequest, assistant: AssistantConfig | null): PreparedCompletion['plugins'] {
  const seen = new Set<PluginId>();
  const named = [...(request.plugins ?? []).map((id) => ({ id, trigger: 'requested' as const })), ...(assistant?.plugins ?? []).map((id) => ({ id, trigger: 'assistant' as const }))];
  return named.filter(({ id }) => {
    const key = id === 'legacy-file-search' ? 'space-search' : id;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface PrepareInputs {
  job: CompletionJob;
  space: SpaceContext;
  sources: CompletionSources;
  autoModelName: string;
  /** The level the request runs at (computed once per run). */
  privacyLevel: number;
  /** The request's last user message, when the caller has read it already. */
  query?: string;
}

export async function prepareCompletion({ job, space, sources, autoModelName, privacyLevel, query }: PrepareInputs): Promise<PreparedCompletion> {
  const { request } = job;
  // Every id the request names is checked here, once, before anything runs: the reads run at once (none
  // when it names none), and their errors count in this order (the assistant's first).
  const { assistant, history } = namesNothingStored(job, space) ? NOTHING_STORED : await readNamed(job, space, sources);
  const overrides = request.custom_headers ?? {};
  const policies: Policies = { ...mergePolicies(space.policies, overrides.policies), privacy_level: privacyLevel };
  const named = request.model ?? assistant?.model ?? null;
  const messages = withHistory(withInstructions(chatMessagesOf(request.messages), assistant?.instructions ?? space.settings.instructions), history);
  return {
    chat: {
      messages,
      max_tokens: request.max_tokens ?? request.max_completion_tokens ?? assistant?.max_tokens ?? space.settings.max_tokens ?? undefined,
      temperature: request.temperature ?? assistant?.temperature ?? space.settings.temperature ?? undefined,
      top_p: request.top_p ?? assistant?.top_p,
      n: request.n,
      stop: stopOf(request.stop),
      presence_penalty: request.presence_penalty,
      frequency_penalty: request.frequency_penalty,
      logit_bias: request.logit_bias,
      tools: request.tools?.map((tool) => ({ ...tool, function: { ...tool.function, strict: tool.function.strict ?? undefined } })),
      tool_choice: request.tool_choice,
      response_format: (request.response_format ?? assistant?.response_format) as ResponseFormat | undefined,
      seed: request.seed,
      user: request.user,
      extra: extraFields(request),
    },
    requestedModel: named === null || named === autoModelName ? null : named,
    weights: { ...space.weights, ...overrides.weights },
    policies,
    flags: mergeFeatureFlags({ ...space.settings.feature_flags, ...job.headerFlags }, overrides.feature_flags),
    labels: overrides.labels ?? {},
    forwardedHeaders: overrides.headers ?? {},
    plugins: namedPlugins(request, assistant),
    query: query ?? lastUserText(request.messages),
    stream: request.stream,
  };
}
