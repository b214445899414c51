import type { AuthContext } from '../../auth/auth-context';
import type { SpaceLookup } from '../../intake/space-lookup';
import type { RoutableModel } from '../../domain/routable-model';
import { ApiError } from '../../errors/api-error';
import type { SpaceContext } from '../../pipeline/space-context';
import type { ModelList, ModelObject } from '../../schemas/openai-models';
import type { Db } from '../../store/db';

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

function modelObject(model: RoutableModel, created: Date | undefined): ModelObject {
  return {
    id: model.model,
    object: 'model',
    created: created ? seconds(created) : 0,
    owned_by: model.owner || model.provider,
    provider: model.provider,
    context_window: model.contextWindow,
    pricing: { prompt: model.promptTokenCost, completion: model.completionTokenCost, request: model.baseCost },
    capabilities: { functions: model.supports.functions, json: model.supports.json, vision: model.supports.vision, stream: model.supports.stream },
    automatic: false,
  };
}

/**
 * `GET /v1/models`: what the key's Space can be asked for, in OpenAI's list format: the service's own
 * name first (the router picks among the Space's models), then each model active in the Space and not
 * switched off service-wide, as the completion path sees them (the same Space context and cache).
 */
export class ModelListService {
  constructor(
    private readonly deps: { db: Db; spaces: SpaceLookup; autoModelName: string },
  ) {}

  async list(auth: AuthContext): Promise<ModelList> {
    const space = await this.spaceOf(auth);
    const dates = await this.datesOf(space);
    const automatic: ModelObject = {
      id: this.deps.autoModelName,
      object: 'model',
      created: dates.space ? seconds(dates.space) : 0,
      owned_by: 'switchyard',
      provider: null,
      context_window: null,
      pricing: null,
      capabilities: null,
      automatic: true,
    };
    // Embedding models too, as OpenAI lists them: they answer `POST /v1/embeddings` (the automatic name as well).
    const offered = [...space.models, ...space.embeddingModels];
    return { object: 'list', data: [automatic, ...offered.map((model) => modelObject(model, dates.models.get(model.id)))] };
  }

  async get(auth: AuthContext, id: string): Promise<ModelObject> {
    const found = (await this.list(auth)).data.find((model) => model.id === id);
    if (!found) throw ApiError.notFound('Model', 'model');
    return found;
  }

  private async spaceOf(auth: AuthContext): Promise<SpaceContext> {
    if (!auth.appId) {
      throw new ApiError('invalid_request', "This key is not bound to a Space; the models a Space offers need a Space key (see `cli keys create --app-id`).", 'Authorization');
    }
    const { space } = await this.deps.spaces.find(auth.appId);
    if (!space || space.orgId !== auth.orgId) throw ApiError.notFound('Space', 'Authorization');
    return space;
  }

  /** When the Space and its models were added: the routing context does not carry dates. */
  private async datesOf(space: SpaceContext): Promise<{ space: Date | undefined; models: Map<string, Date> }> {
    const [app, models] = await Promise.all([
      this.deps.db.app.findUnique({ where: { id: space.id }, select: { added_on: true } }),
      this.deps.db.model.findMany({ where: { id: { in: [...space.models, ...space.embeddingModels].map((model) => model.id) } }, select: { id: true, added_on: true } }),
    ]);
    return { space: app?.added_on, models: new Map(models.map((model) => [model.id, model.added_on])) };
  }
}
