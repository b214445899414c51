import { randomUUID } from 'node:crypto';
import type { SpaceVersions } from '../../cache/space-versions';
import type { Prisma } from '../../generated/prisma/client';
import { ApiError } from '../../errors/api-error';
import { endpointProblem } from '../../net/endpoint-policy';
import { HostAllowlist } from '../../net/host-allowlist';
import type { Resolver } from '../../net/safe-connector';
import type { CreateCustomModelBody, CustomModelView, UpdateCustomModelBody } from '../../schemas/custom-models';
import { customModelKeyContext } from '../../secrets/custom-model-key';
import type { SecretBox } from '../../secrets/secret-box';
import { customModelStore } from '../../store/custom-models';
import { inTransaction, type Db, type Tx } from '../../store/db';
import type { ModelWithParent } from '../../store/models';
import { presentCustomModel } from './present-custom-model';
import { resolveQuality } from './quality-profile';

/** Prices arrive per 1M tokens (the catalog's units) and are stored per token. */
const PER_MILLION = 1_000_000;

export interface CustomModelDeps {
  db: Db;
  versions: SpaceVersions;
  /** Seals API keys; null when the service has no PLUGIN_SECRETS_KEY (a key then cannot be stored). */
  secrets: SecretBox | null;
  /** `SSRF_ALLOWED_HOSTS`: internal hosts a base URL may name. */
  allowedHosts: readonly string[];
  /** The automatic model's name (`switchyard`), which no model may take. */
  autoModelName: string;
  /** Name resolution for the base URL check; the system's unless a test gives a table. */
  resolve?: Resolver;
}

/** Who adds a model: its organization, and who is recorded in `added_by`. */
export interface CustomModelOwner {
  orgId: string;
  addedBy: string;
}

/**
 * An organization's own models, served by its own OpenAI-compatible server (Ollama, vLLM, ...). They
 * show in every Space's `custom_model_settings`, are switched on per Space like catalog models, and are
 * then routed by name and by the automatic router, called at their base URL with their own key.
 * Another organization's model answers exactly like an unknown id.
 */
export class CustomModelService {
  private readonly allowlist: HostAllowlist;

  constructor(private readonly deps: CustomModelDeps) {
    this.allowlist = new HostAllowlist(deps.allowedHosts);
  }

  async list(orgId: string): Promise<CustomModelView[]> {
    return (await customModelStore.list(this.deps.db, orgId)).map(presentCustomModel);
  }

  async get(orgId: string, id: string): Promise<CustomModelView> {
    return presentCustomModel(await this.find(this.deps.db, orgId, id));
  }

  async create(owner: CustomModelOwner, body: CreateCustomModelBody): Promise<CustomModelView> {
    await this.checkBaseUrl(body.base_url);
    const id = randomUUID();
    const row = await inTransaction(this.deps.db, async (tx) => {
      await this.checkName(tx, { orgId: owner.orgId, name: body.model });
      const quality = await resolveQuality(tx, { orgId: owner.orgId, input: body.quality });
      return customModelStore.create(tx, {
        id,
        org_id: owner.orgId,
        app_id: null,
        added_by: owner.addedBy,
        model: body.model,
        provider: body.provider,
        namespace: body.namespace,
        api_target: body.base_url,
        api_key_sealed: body.api_key === undefined ? null : this.seal(id, body.api_key),
        description: body.description,
        context_window: body.context_window,
        prompt_token_cost: body.prices.prompt_per_1m / PER_MILLION,
        completion_token_cost: body.prices.completion_per_1m / PER_MILLION,
        supports_functions: body.capabilities.functions,
        supports_json: body.capabilities.json,
        supports_vision: body.capabilities.vision,
        supports_stream: body.capabilities.stream,
        supports_reasoning: body.capabilities.reasoning,
        is_gdpr: body.is_gdpr,
        is_public: false,
        quality_profile: quality as unknown as Prisma.InputJsonValue,
      });
    });
    return presentCustomModel(row);
  }

  async update(orgId: string, id: string, body: UpdateCustomModelBody): Promise<CustomModelView> {
    if (body.base_url !== undefined) await this.checkBaseUrl(body.base_url);
    const { row, spaces } = await inTransaction(this.deps.db, async (tx) => {
      const current = await this.find(tx, orgId, id);
      if (body.model !== undefined && body.model !== current.model) await this.checkName(tx, { orgId, name: body.model, exceptId: id });
      const data = await this.changes(tx, { orgId, current, body });
      return { row: await customModelStore.update(tx, id, data), spaces: await customModelStore.spacesUsing(tx, id) };
    });
    await this.deps.versions.bump(spaces);
    return presentCustomModel(row);
  }

  /** Removes the model from every Space (its states and failover links go with it). */
  async remove(orgId: string, id: string): Promise<{ id: string; object: 'custom_model'; deleted: true }> {
    const spaces = await inTransaction(this.deps.db, async (tx) => {
      await this.find(tx, orgId, id);
      const using = await customModelStore.spacesUsing(tx, id);
      await customModelStore.remove(tx, id);
      return using;
    });
    await this.deps.versions.bump(spaces);
    return { id, object: 'custom_model', deleted: true };
  }

  private async changes(
    tx: Tx,
    { orgId, current, body }: { orgId: string; current: ModelWithParent; body: UpdateCustomModelBody },
  ): Promise<Prisma.ModelUncheckedUpdateInput> {
    const caps = body.capabilities ?? {};
    return {
      model: body.model,
      provider: body.provider,
      namespace: body.namespace,
      api_target: body.base_url,
      api_key_sealed: body.api_key === undefined ? undefined : body.api_key === null ? null : this.seal(current.id, body.api_key),
      description: body.description,
      context_window: body.context_window,
      prompt_token_cost: body.prices ? body.prices.prompt_per_1m / PER_MILLION : undefined,
      completion_token_cost: body.prices ? body.prices.completion_per_1m / PER_MILLION : undefined,
      supports_functions: caps.functions,
      supports_json: caps.json,
      supports_vision: caps.vision,
      supports_stream: caps.stream,
      supports_reasoning: caps.reasoning,
      is_gdpr: body.is_gdpr,
      quality_profile: body.quality ? ((await resolveQuality(tx, { orgId, input: body.quality })) as unknown as Prisma.InputJsonValue) : undefined,
    };
  }

  private async find(tx: Tx, orgId: string, id: string): Promise<ModelWithParent> {
    const row = await customModelStore.find(tx, { orgId, id });
    // As every path's `model_id` (RESOURCE_OF_PATH_ID): a malformed id and an unknown one answer alike.
    if (!row) throw ApiError.notFound('Model', 'model_id');
    return row;
  }

  private async checkBaseUrl(baseUrl: string): Promise<void> {
    const problem = await endpointProblem(baseUrl, { allowlist: this.allowlist, resolve: this.deps.resolve });
    if (problem) throw new ApiError('invalid_value', `Invalid value for 'base_url': ${problem}.`, 'base_url');
  }

  /** A name requests could already mean (a catalog model, another of the organization's) would make routing by name ambiguous. */
  private async checkName(tx: Tx, { orgId, name, exceptId }: { orgId: string; name: string; exceptId?: string }): Promise<void> {
    if (name === this.deps.autoModelName) throw new ApiError('invalid_value', `Invalid value for 'model': '${name}' names the automatic router.`, 'model');
    await customModelStore.lockNames(tx, orgId);
    if (await customModelStore.findNameClash(tx, { orgId, name, exceptId })) {
      throw new ApiError(
        'conflict',
        `A model named '${name}' already exists for this organization (in the catalog or among its custom models); choose another name.`,
        'model',
      );
    }
  }

  private seal(modelId: string, apiKey: string): string {
    if (!this.deps.secrets) {
      throw new ApiError(
        'invalid_request',
        "This service has no key for secrets (PLUGIN_SECRETS_KEY is not configured), so 'api_key' cannot be stored. Ask the operator to set it.",
        'api_key',
      );
    }
    return this.deps.secrets.seal(apiKey, customModelKeyContext(modelId));
  }
}
