import { isDeepStrictEqual } from 'node:util';
import type { AuthContext } from '../../auth/auth-context';
import { ApiError } from '../../errors/api-error';
import type { AssistantConfig, AssistantDetailView, AssistantView, CreateAssistantInput, UpdateAssistantInput } from '../../schemas/assistants';
import type { Page, PageQuery } from '../../schemas/common';
import type { AssistantRepository, AssistantRow, SpaceRef } from '../../store/assistants';
import { toPage } from '../../store/pagination';
import type { PromptRepository } from '../../store/prompts';
import type { SpaceVersions } from '../../cache/space-versions';
import { promptStatus } from '../../schemas/prompt-state';
import { canSeeDefinition } from './assistant-access';
import { currentVersion, presentAssistant, presentAssistantDetail } from './present-assistant';
import { firstFreeSlug, slugFamilyPrefix, slugify } from './slug';
import { requireVisibleSpace } from './space-access';

/**
 * Rounds of "read the taken slugs, insert the first free one". Every round one of the racing
 * requests wins, so this bounds how many same-named assistants may be created at the same instant.
 */
const SLUG_ATTEMPTS = 25;

/** Which assistant of which Space a request names. */
export interface AssistantRef {
  appId: string;
  assistantId: string;
}

export interface AssistantServiceDeps {
  assistants: AssistantRepository;
  prompts: PromptRepository;
  /** Name clients send as `model` to ask for automatic selection. */
  autoModelName: string;
  /** Completions read an assistant's configuration once per Space snapshot: a write that may change it bumps the Space's stamp. */
  versions: Pick<SpaceVersions, 'bump'>;
}

export class AssistantService {
  constructor(private readonly deps: AssistantServiceDeps) {}

  async create(auth: AuthContext, appId: string, input: CreateAssistantInput): Promise<AssistantView> {
    const space = await this.space(auth, appId);
    const config = input.assistant_config ?? null;
    await this.checkReferences(auth, space, config);
    const base = slugify(input.name);
    for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt += 1) {
      const taken = await this.deps.assistants.slugsStartingWith(space.id, slugFamilyPrefix(base));
      const row = await this.deps.assistants.insert({
        app_id: space.id,
        slug: firstFreeSlug(base, taken),
        name: input.name,
        avatar: input.avatar ?? null,
        description: input.description ?? null,
        visibility: input.visibility,
        definition_visibility: input.definition_visibility,
        added_by: auth.idpId,
        config,
      });
      if (!row) continue;
      await this.deps.versions.bump([space.id]);
      return presentAssistant(row);
    }
    throw new ApiError('conflict', 'Too many assistants of this name are being created at once; retry.', 'name');
  }

  async list(auth: AuthContext, appId: string, query: PageQuery): Promise<Page<AssistantView>> {
    const space = await this.space(auth, appId);
    const rows = await this.deps.assistants.list(space.id, auth, query);
    return toPage(rows, query, presentAssistant);
  }

  async get(auth: AuthContext, ref: AssistantRef): Promise<AssistantDetailView> {
    const space = await this.space(auth, ref.appId);
    return presentAssistantDetail(await this.findIn(space, auth, ref.assistantId), auth);
  }

  /** Partial update; a different `assistant_config` becomes the next version. The slug never changes. */
  async update(auth: AuthContext, ref: AssistantRef, input: UpdateAssistantInput): Promise<AssistantView> {
    const space = await this.space(auth, ref.appId);
    const row = await this.findIn(space, auth, ref.assistantId);
    // Changing what one may not read would be writing blind over someone else's definition.
    if (!canSeeDefinition(auth, row)) {
      throw new ApiError('permission_denied', 'Only its creator may change an assistant whose definition is private.');
    }
    const { assistant_config: config, ...fields } = input;
    let newVersion: { value: AssistantConfig | null } | undefined;
    if (config !== undefined && !isDeepStrictEqual(currentVersion(row).assistant_config, config)) {
      await this.checkReferences(auth, space, config);
      newVersion = { value: config };
    }
    if (!newVersion && Object.values(fields).every((value) => value === undefined)) return presentAssistant(row);
    const updated = await this.deps.assistants.update(row.id, fields, newVersion);
    if (newVersion) await this.deps.versions.bump([space.id]);
    return presentAssistant(updated);
  }

  private space(auth: AuthContext, appId: string): Promise<SpaceRef> {
    return requireVisibleSpace((id) => this.deps.assistants.findSpace(id), auth, appId);
  }

  private async findIn(space: SpaceRef, auth: AuthContext, id: string): Promise<AssistantRow> {
    const row = await this.deps.assistants.findInSpace(space.id, id, auth);
    if (!row) throw ApiError.notFound('Assistant', 'assistant_id');
    return row;
  }

  /** The prompt and model a configuration names must be usable by the Space. */
  private async checkReferences(auth: AuthContext, space: SpaceRef, config: AssistantConfig | null): Promise<void> {
    if (config?.prompt_id) {
      const prompt = await this.deps.prompts.findById(config.prompt_id);
      if (!prompt || (prompt.org_id !== auth.orgId && promptStatus(prompt) !== 'approved')) {
        throw new ApiError(
          'invalid_value',
          "Invalid value for 'assistant_config.prompt_id': no prompt with this id is available to your organization.",
          'assistant_config.prompt_id',
        );
      }
    }
    const model = config?.model;
    if (model && model !== this.deps.autoModelName && !(await this.deps.assistants.isModelNameAvailable(model, space))) {
      throw new ApiError(
        'model_not_available',
        `Invalid value for 'assistant_config.model': no model named '${model}' is available to this Space.`,
        'assistant_config.model',
      );
    }
  }
}
