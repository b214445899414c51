import type { AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import type { Page, PageQuery } from '../../schemas/common';
import type { ConversationSettings, ConversationView, CreateConversationInput } from '../../schemas/conversations';
import type { AssistantRepository, SpaceRef } from '../../store/assistants';
import type { ConversationRepository, ConversationRow } from '../../store/conversations';
import { toPage } from '../../store/pagination';
import { currentVersion } from '../assistants/present-assistant';
import { requireVisibleSpace } from '../assistants/space-access';
import { presentConversation } from './present-conversation';

type SettingsInput = CreateConversationInput['settings'];

export class ConversationService {
  constructor(
    private readonly conversations: ConversationRepository,
    private readonly assistants: AssistantRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async create(auth: AuthContext, appId: string, input: CreateConversationInput): Promise<ConversationView> {
    const space = await this.space(auth, appId);
    const { addedOn, modifiedOn } = this.stamps(input);
    const settings = await this.resolveSettings(auth, space, input.settings);
    const row = await this.conversations.create({ app_id: space.id, name: input.name, settings, added_on: addedOn, modified_on: modifiedOn });
    return presentConversation(row);
  }

  async list(auth: AuthContext, appId: string, query: PageQuery): Promise<Page<ConversationView>> {
    const space = await this.space(auth, appId);
    return toPage(await this.conversations.listLive(space.id, query), query, presentConversation);
  }

  async get(auth: AuthContext, appId: string, id: string): Promise<ConversationView> {
    const space = await this.space(auth, appId);
    return presentConversation(orNotFound(await this.conversations.findLive(space.id, id)));
  }

  /** Soft delete: the row stays with `deleted_on` set and answers 404 from then on. */
  async delete(auth: AuthContext, appId: string, id: string): Promise<ConversationView> {
    const space = await this.space(auth, appId);
    return presentConversation(orNotFound(await this.conversations.softDelete(space.id, id, this.clock())));
  }

  /**
   * Both default to now; when only one is given (an import), the other defaults so that the pair
   * stays ordered: a conversation modified at T existed at T, and one created at T was modified no earlier.
   */
  private stamps(input: CreateConversationInput): { addedOn: Date; modifiedOn: Date } {
    const now = this.clock().getTime();
    const given = { added: input.added_on ? Date.parse(input.added_on) : null, modified: input.modified_on ? Date.parse(input.modified_on) : null };
    const added = given.added ?? Math.min(now, given.modified ?? now);
    const modified = given.modified ?? Math.max(now, added);
    if (modified < added) {
      throw new ApiError('invalid_value', "Invalid value for 'modified_on': it must not be before 'added_on'.", 'modified_on');
    }
    return { addedOn: new Date(added), modifiedOn: new Date(modified) };
  }

  private space(auth: AuthContext, appId: string): Promise<SpaceRef> {
    return requireVisibleSpace((id) => this.assistants.findSpace(id), auth, appId);
  }

  /** The assistant must be one the caller sees in this Space, and the version one of that assistant's. */
  private async resolveSettings(auth: AuthContext, space: SpaceRef, input: SettingsInput): Promise<ConversationSettings> {
    const assistantId = input?.assistant_id ?? null;
    const versionId = input?.assistant_version_id ?? null;
    if (assistantId === null) {
      if (versionId === null) return { assistant_id: null, assistant_version_id: null };
      throw new ApiError(
        'missing_field',
        "Missing required field 'settings.assistant_id': it is required with 'settings.assistant_version_id'.",
        'settings.assistant_id',
      );
    }
    const assistant = await this.assistants.findInSpace(space.id, assistantId, auth);
    if (!assistant) {
      throw new ApiError('invalid_value', "Invalid value for 'settings.assistant_id': no assistant with this id in this Space.", 'settings.assistant_id');
    }
    if (versionId === null) return { assistant_id: assistant.id, assistant_version_id: currentVersion(assistant).id };
    const version = await this.assistants.findVersion(assistant.id, versionId);
    if (!version) {
      throw new ApiError(
        'invalid_value',
        "Invalid value for 'settings.assistant_version_id': not a version of this assistant.",
        'settings.assistant_version_id',
      );
    }
    return { assistant_id: assistant.id, assistant_version_id: version.id };
  }
}

function orNotFound(row: ConversationRow | null): ConversationRow {
  if (!row) throw ApiError.notFound('Conversation', 'conversation_id');
  return row;
}
