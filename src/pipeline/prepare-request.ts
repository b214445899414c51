import { lastUserText, type ChatMessage, type ChatRequest, type ResponseFormat } from '../domain/chat';
import type { PluginTrigger } from '../domain/completion';
import type { PluginId } from '../domain/plugin-output';
import { privacyPolicyOf, type PrivacyLevel, type PrivacyPolicy } from '../domain/privacy-policy';
import type { RequestedCompletion, RequestPolicies, SpaceDefaults, StoredReferences } from '../domain/requested-completion';
import type { FeatureFlags, Weights } from '../domain/space-policies';
import { ApiError } from '../errors/api-error';
import { canonicalPluginId } from '../plugins/catalog';
import type { AssistantConfig, CompletionSources } from '../store/completion-sources';
import type { SpaceContext } from '../store/space-context';
import { turnsToMessages } from './conversation-turns';
import { readOnce } from './space-memo';

/** A request with its assistant's and its conversation's contributions layered in: what the steps run. */
export interface PreparedCompletion {
  /** `model` is filled in per attempt with the provider's name for the model. */
  chat: Omit<ChatRequest, 'model'>;
  /** The model the caller (or the assistant) named; null asks for automatic selection. */
  requestedModel: string | null;
  weights: Weights;
  policies: RequestPolicies;
  /** What the request's privacy level allows (the level decided at intake, as the job carries it). */
  privacy: PrivacyPolicy;
  flags: FeatureFlags;
  labels: Record<string, string | number | boolean>;
  /** Extra HTTP headers for every upstream call (`custom_headers.headers`, checked at the edge). */
  forwardedHeaders: Record<string, string>;
  /** Plugins the request or its assistant named (each once, an old alias counting as its plugin). */
  plugins: { id: PluginId; trigger: Extract<PluginTrigger, 'requested' | 'assistant'> }[];
  /** The request's last user turn: what search plugins look up. */
  query: string;
  /** Images and files the request handed to plugins. */
  images: string[];
  files: string[];
  stream: boolean;
}

/**
 * An assistant's configuration, read and parsed once per Space snapshot: every write of an assistant
 * bumps its Space's stamp (AssistantService), so a snapshot's copy is never older than the request.
 */
function assistantConfigOf(
  space: SpaceContext,
  { assistantId, versionId }: { assistantId: string; versionId: string | null },
  sources: CompletionSources,
): Promise<{ config: AssistantConfig | null } | null> {
  return readOnce(space, `assistant:${assistantId}:${versionId ?? 'newest'}`, () => sources.assistantConfig(space.id, assistantId, versionId));
}

async function assistantOf(stored: StoredReferences, space: SpaceContext, sources: CompletionSources): Promise<AssistantConfig | null> {
  const { assistantId, assistantVersionId: versionId, assistantNamedBy: named } = stored;
  if (!assistantId && versionId) throw ApiError.notFound('Assistant', 'assistant_version_id');
  if (!assistantId) return null;
  const found = await assistantConfigOf(space, { assistantId, versionId }, sources);
  // An assistant (or version) the request names is one of its Space's, or unknown: another Space's answers alike.
  if (!found && named) throw ApiError.notFound('Assistant', named);
  // The Space's own setting names a deleted assistant: its configuration is at fault, not the request.
  if (!found) throw new ApiError('invalid_value', 'No such assistant (or version) in this Space.', 'settings.assistant_id');
  return found.config;
}

async function historyOf(stored: StoredReferences, space: SpaceContext, sources: CompletionSources): Promise<ChatMessage[]> {
  const { conversationId } = stored;
  if (!conversationId) return [];
  if (!(await sources.conversationExists(space.id, conversationId))) throw ApiError.notFound('Conversation', 'conversation_id');
  return turnsToMessages(await sources.history(conversationId));
}

/** `parent_request_id` names a request of the caller's organization, readable as `GET /v1/logs/{id}` reads it. */
async function checkParent(stored: StoredReferences, orgId: string, sources: CompletionSources): Promise<void> {
  const parentId = stored.parentRequestId;
  if (parentId && !(await sources.requestExists(orgId, parentId))) throw ApiError.notFound('Log', 'parent_request_id');
}

/** A settled read's value, or its error thrown. */
function valueOf<T>(read: PromiseSettledResult<T>): T {
  if (read.status === 'rejected') throw read.reason;
  return read.value;
}

/** The defaults of a Space that sets none. */
const NO_DEFAULTS: SpaceDefaults = Object.freeze({ instructions: null, max_tokens: null, temperature: null });

/** What a request naming nothing stored reads: shared by every such request, so frozen. */
const NOTHING_STORED: { assistant: null; history: readonly ChatMessage[] } = Object.freeze({ assistant: null, history: Object.freeze([]) });

/** What the request names, read at once; their errors count in this order (the assistant's first). */
async function readStored(
  stored: StoredReferences,
  { space, orgId, sources }: { space: SpaceContext; orgId: string; sources: CompletionSources },
): Promise<{ assistant: AssistantConfig | null; history: readonly ChatMessage[] }> {
  const reads = await Promise.allSettled([assistantOf(stored, space, sources), historyOf(stored, space, sources), checkParent(stored, orgId, sources)]);
  const [assistant, history] = [valueOf(reads[0]), valueOf(reads[1]), valueOf(reads[2])];
  return { assistant, history };
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

/** Named plugins, the request's own first; an id named twice (or under its old name) runs once. */
function namedPlugins(requested: readonly PluginId[], assistant: AssistantConfig | null): PreparedCompletion['plugins'] {
  const seen = new Set<PluginId>();
  const named = [
    ...requested.map((id) => ({ id, trigger: 'requested' as const })),
    ...(assistant?.plugins ?? []).map((id) => ({ id, trigger: 'assistant' as const })),
  ];
  return named.filter(({ id }) => {
    const key = canonicalPluginId(id);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface PrepareInputs {
  request: RequestedCompletion;
  /** The level the intake decided (the job's `privacyLevel`): its policy is looked up here, once for the steps. */
  privacyLevel: PrivacyLevel;
  orgId: string;
  space: SpaceContext;
  sources: CompletionSources;
  /** The model name that asks for automatic selection: an assistant may name it too. */
  autoModelName: string;
}

/**
 * The decided request with what it names in the database layered in: the assistant between the request
 * and the Space's defaults, the conversation's earlier turns before the new ones. Every id the request
 * names is checked here, once, before anything runs (no read at all when it names none).
 */
export async function prepareCompletion({ request, privacyLevel, orgId, space, sources, autoModelName }: PrepareInputs): Promise<PreparedCompletion> {
  const { chat, defaults = NO_DEFAULTS } = request;
  const { assistant, history } = request.stored ? await readStored(request.stored, { space, orgId, sources }) : NOTHING_STORED;
  const named = request.model ?? assistant?.model ?? null;
  const messages = withHistory(withInstructions(chat.messages, assistant?.instructions ?? defaults.instructions), history);
  return {
    chat: {
      ...chat,
      messages,
      max_tokens: chat.max_tokens ?? assistant?.max_tokens ?? defaults.max_tokens ?? undefined,
      temperature: chat.temperature ?? assistant?.temperature ?? defaults.temperature ?? undefined,
      top_p: chat.top_p ?? assistant?.top_p,
      response_format: chat.response_format ?? (assistant?.response_format as ResponseFormat | undefined),
    },
    requestedModel: named === null || named === autoModelName ? null : named,
    weights: request.weights,
    policies: request.policies,
    privacy: privacyPolicyOf(privacyLevel),
    // The job leaves out what is empty.
    flags: request.flags ?? {},
    labels: request.labels ?? {},
    forwardedHeaders: request.forwardedHeaders ?? {},
    plugins: namedPlugins(request.plugins ?? [], assistant),
    query: lastUserText(chat.messages),
    images: request.images ?? [],
    files: request.files ?? [],
    stream: request.stream === true,
  };
}
