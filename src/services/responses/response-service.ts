import type { PrivacyPolicy } from '../../domain/privacy-policy';
import type { AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import type { CompletionRequest } from '../../schemas/chat-completions';
import type { Page } from '../../schemas/common';
import type { InputItemsQuery } from '../../schemas/responses-input-items';
import type { ResolvedItem, ResponsesInputItem } from '../../schemas/responses';
import type { OutputItem, ResponseObject } from '../../schemas/responses-object';
import type { ConversationRepository } from '../../store/conversations';
import { pageOfItems } from './input-item-page';
import { responseIdOfItem } from './response-ids';
import { readStoredBody, storedBodyOf, type StoredInputItem } from './stored-response';
import type { ResponseRecords, ResponseRow, ResponseScope } from '../../store/response-records';

/** What a Responses request becomes before it runs. */
export interface ResponsePlan {
  /** The chat completion request the completion job runs (with `conversation_id` when it continues or starts a chain). */
  chat: CompletionRequest;
  /** Whether the response is kept with its content. */
  store: boolean;
  /** Set when the response joins a conversation: it is then recorded once it has succeeded. */
  record: { orgId: string; appId: string; conversationId: string; previousResponseId: string | null } | null;
  /** The request's input items (`item_reference`s resolved), kept with a stored response for `input_items`. */
  input: ResolvedItem[];
}

export interface PlanRequest {
  chat: CompletionRequest;
  store: boolean | null | undefined;
  previousResponseId: string | null;
  input: ResolvedItem[];
}

export interface ResponseServiceDeps {
  records: ResponseRecords;
  conversations: ConversationRepository;
  /** The level the request would run at now (its Space's and its own), checking the key's Space. */
  privacyOf(auth: AuthContext, request: CompletionRequest): Promise<PrivacyPolicy>;
  clock?: () => Date;
}

/** Conversations started by the Responses API are named so in `GET /v1/apps/{app_id}/conversations`. */
const CONVERSATION_NAME = 'responses';

function scopeOf(auth: AuthContext): ResponseScope {
  return { orgId: auth.orgId, appId: auth.appId };
}

/** An output item of a stored response as the input item it stands for when referenced. */
function inputItemOf(item: OutputItem): ResolvedItem {
  if (item.type === 'function_call') return { type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments };
  return { type: 'message', role: 'assistant', content: item.content.map((part) => ({ type: 'output_text' as const, text: part.text })) };
}

/**
 * The Responses API's state: which responses are kept, continuing one (`previous_response_id`) through
 * the conversation its chain lives in, reading and deleting them. A chain is one line: a response
 * can be continued once (its conversation's history is what the next turn replays).
 */
export class ResponseService {
  private readonly clock: () => Date;

  constructor(private readonly deps: ResponseServiceDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /**
   * Decides `store` at the request's privacy level and the conversation the response joins. `chat` is
   * the request as the completion job runs it, its `item_reference`s already resolved.
   */
  async plan(auth: AuthContext, request: PlanRequest): Promise<ResponsePlan> {
    const { chat, previousResponseId, input } = request;
    const privacy = await this.deps.privacyOf(auth, chat);
    const store = this.storeAt(privacy, request.store);
    const appId = auth.appId as string; // privacyOf refused a key without a Space
    const conversationId = await this.conversationFor(auth, { previousId: previousResponseId, store });
    if (conversationId === null) return { chat, store, record: null, input };
    return { chat: { ...chat, conversation_id: conversationId }, store, record: { orgId: auth.orgId, appId, conversationId, previousResponseId }, input };
  }

  /** Records a finished response: with its content when stored, else only as its predecessor's continuation. */
  async keep(plan: ResponsePlan, response: ResponseObject): Promise<void> {
    if (!plan.record) return;
    const { orgId, appId, conversationId, previousResponseId } = plan.record;
    await this.deps.records.create({
      id: response.id,
      org_id: orgId,
      app_id: appId,
      conversation_id: conversationId,
      previous_response_id: previousResponseId,
      body: plan.store ? storedBodyOf(response, plan.input) : null,
    });
  }

  /** A first turn that failed leaves no chain: the conversation made for it goes (soft delete, as the conversations API does). */
  async discard(plan: ResponsePlan): Promise<void> {
    if (!plan.record || plan.record.previousResponseId !== null) return;
    await this.deps.conversations.softDelete(plan.record.appId, plan.record.conversationId, this.clock());
  }

  async get(auth: AuthContext, id: string): Promise<ResponseObject> {
    const row = await this.findReadable(auth, id);
    if (!row) throw ApiError.notFound('Response', 'response_id');
    return readStoredBody(row.body).response;
  }

  /** The input items of a stored response, paged as OpenAI pages them (404 as `get`). */
  async inputItems(auth: AuthContext, id: string, query: InputItemsQuery): Promise<Page<StoredInputItem>> {
    const row = await this.findReadable(auth, id);
    if (!row) throw ApiError.notFound('Response', 'response_id');
    return pageOfItems(readStoredBody(row.body).input_items, query);
  }

  async delete(auth: AuthContext, id: string): Promise<{ id: string; object: 'response'; deleted: true }> {
    if (!(await this.deps.records.delete(scopeOf(auth), id, this.clock()))) throw ApiError.notFound('Response', 'response_id');
    return { id, object: 'response', deleted: true };
  }

  /**
   * A stored response the caller may read, while its Space is still at privacy level 1: once the Space's
   * level is raised, its stored responses are dropped as they are met (as kept chat answers are on a rise),
   * and answer like unknown ones. A Space that cannot be checked (deactivated) hides them without dropping.
   */
  private async findReadable(auth: AuthContext, id: string): Promise<ResponseRow | null> {
    const row = await this.deps.records.findStored(scopeOf(auth), id);
    if (!row) return null;
    const now = await this.deps.privacyOf({ ...auth, appId: row.app_id }, { messages: [], stream: false }).catch(() => null);
    if (now === null) return null;
    if (!now.masksContent) return row;
    await this.deps.records.delete({ orgId: row.org_id, appId: row.app_id }, row.id, this.clock());
    return null;
  }

  /**
   * `store` defaults to true, as OpenAI's. At privacy level 2 and 3 no content may be kept: an explicit
   * `store: true` is refused, and the default becomes false (the response says `store: false`).
   */
  private storeAt(privacy: PrivacyPolicy, asked: boolean | null | undefined): boolean {
    if (!privacy.masksContent) return asked ?? true;
    if (asked === true) {
      throw new ApiError(
        'invalid_value',
        `Invalid value for 'store': this request runs at privacy level ${privacy.level}, where no content is kept; send store false or leave it out.`,
        'store',
      );
    }
    return false;
  }

  /** The conversation the response joins: its predecessor's, a new one for a stored first turn, or none. */
  private async conversationFor(auth: AuthContext, { previousId, store }: { previousId: string | null; store: boolean }): Promise<string | null> {
    if (previousId !== null) {
      const previous = await this.findReadable(auth, previousId);
      // Its conversation deleted (DELETE /v1/apps/{app_id}/conversations/{id}), the chain has no history left to continue.
      const live = previous && (await this.deps.conversations.findLive(previous.app_id, previous.conversation_id));
      if (!previous || !live) throw ApiError.notFound('Response', 'previous_response_id');
      const next = await this.deps.records.findContinuation(previous.id);
      if (next) {
        throw new ApiError(
          'invalid_value',
          `Invalid value for 'previous_response_id': ${previousId} was already continued by ${next.id}; continue from the latest response of the chain.`,
          'previous_response_id',
        );
      }
      return previous.conversation_id;
    }
    if (!store) return null;
    const now = this.clock();
    const conversation = await this.deps.conversations.create({
      app_id: auth.appId as string,
      name: CONVERSATION_NAME,
      settings: { assistant_id: null, assistant_version_id: null },
      added_on: now,
      modified_on: now,
    });
    return conversation.id;
  }

  /** `item_reference` items replaced by the output items of stored responses they name (404 naming the item otherwise). */
  async resolveReferences(auth: AuthContext, items: ResponsesInputItem[]): Promise<ResolvedItem[]> {
    const resolved: ResolvedItem[] = [];
    for (const [i, item] of items.entries()) {
      if (item.type !== 'item_reference') {
        resolved.push(item);
        continue;
      }
      const responseId = responseIdOfItem(item.id);
      const row = responseId ? await this.findReadable(auth, responseId) : null;
      const found = row ? readStoredBody(row.body).response.output.find((output) => output.id === item.id) : undefined;
      if (!found) throw ApiError.notFound('Item', `input[${i}].id`);
      resolved.push(inputItemOf(found));
    }
    return resolved;
  }
}
