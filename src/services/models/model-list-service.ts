import type { AuthContext } from '../../auth/auth-context';
import type { SpaceLookup } from '../../intake/space-lookup';
import { modelAllowed, type ModelAllowList } from '../../domain/model-allow-list';
import type { Unavailability } from '../../domain/model-availability';
import type { RoutableModel } from '../../domain/routable-model';
import { ApiError } from '../../errors/api-error';
import { toRoutableModel, type SpaceContext } from '../../store/space-context';
import type { ModelList, ModelObject } from '../../schemas/openai-models';
import { appStore } from '../../store/apps';
import type { Db } from '../../store/db';
import { modelStore } from '../../store/models';
import { didYouMean } from '../../text/close-names';
import type { ModelAvailability } from './model-availability';

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** A model of the listing with every reason it cannot answer (none: it can). */
interface Listed {
  model: RoutableModel;
  reasons: Unavailability[];
  /** Switched on in the Space. */
  active: boolean;
  /** When it entered the catalog, when already known (rows read for `all`). */
  added?: Date;
}

function modelObject({ model, reasons, active }: Listed, created: Date | undefined): ModelObject {
  return {
    id: model.model,
    object: 'model',
    created: created ? seconds(created) : 0,
    owned_by: model.owner || model.provider,
    provider: model.provider,
    context_window: model.contextWindow,
    pricing: { prompt: model.promptTokenCost, completion: model.completionTokenCost, request: model.baseCost },
    capabilities: {
      functions: model.supports.functions,
      json: model.supports.json,
      vision: model.supports.vision,
      stream: model.supports.stream,
      reasoning: model.supports.reasoning,
    },
    automatic: false,
    active,
    available: reasons.length === 0,
    unavailable_reason: reasons[0] ?? null,
    unavailable_reasons: reasons,
  };
}

const NO_MODEL: Unavailability = { code: 'no_model_available', message: 'no model of this Space can answer now' };
const NOT_ALLOWED: Unavailability = { code: 'not_allowed_for_key', message: "this key's allowed_models leaves it out" };

/** A model's reasons with the key's list applied: the reasons the model has anyway come first. */
function forKey(entry: Listed, allowed: ModelAllowList | null): Listed {
  return allowed === null || modelAllowed(entry.model, allowed) ? entry : { ...entry, reasons: [...entry.reasons, NOT_ALLOWED] };
}

/**
 * `GET /v1/models`: what the key's Space can be asked for, in OpenAI's list format: the service's own
 * name first (the router picks among the Space's models), then each model active in the Space, not
 * switched off service-wide and able to answer now (its provider configured, not retired), as the
 * completion path sees them (the same Space context and cache), within the key's `allowed_models` if it
 * has a list. With `all`, also every other model the Space can see, with `available: false` and why.
 */
export class ModelListService {
  constructor(private readonly deps: { db: Db; spaces: SpaceLookup; autoModelName: string; availability: ModelAvailability }) {}

  async list(auth: AuthContext, { all }: { all: boolean } = { all: false }): Promise<ModelList> {
    const space = await this.spaceOf(auth);
    const now = new Date();
    const offered = [...space.models, ...space.embeddingModels].map((model): Listed =>
      forKey({ model, reasons: this.deps.availability.reasons(model, { globallyDisabled: false, active: true }, now), active: true }, auth.allowedModels),
    );
    const shown = all
      ? [...offered, ...(await this.othersOf(space, offered)).map((entry) => forKey(entry, auth.allowedModels))]
      : offered.filter((entry) => entry.reasons.length === 0);
    const dates = await this.datesOf(space, shown);
    // The automatic name answers while one chat model of the Space can.
    const canRoute = offered.some((entry) => entry.reasons.length === 0 && space.models.includes(entry.model));
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
      active: true,
      available: canRoute,
      unavailable_reason: canRoute ? null : NO_MODEL,
      unavailable_reasons: canRoute ? [] : [NO_MODEL],
    };
    // Embedding models too, as OpenAI lists them: they answer `POST /v1/embeddings` (the automatic name as well).
    const listed = shown.map((entry) => modelObject(entry, entry.added ?? dates.models.get(entry.model.id)));
    return { object: 'list', data: canRoute || all ? [automatic, ...listed] : listed };
  }

  /** One model of the Space by name, available or not; an unknown name answers 404 with the closest names. */
  async get(auth: AuthContext, id: string): Promise<ModelObject> {
    const { data } = await this.list(auth, { all: true });
    const found = data.find((model) => model.id === id);
    if (found) return found;
    const hint = didYouMean(
      id,
      data.filter((model) => model.available).map((model) => model.id),
    );
    // The path id is not echoed: a malformed one answers as an unknown one does (src/http/unknown-path-id.ts).
    if (!hint) throw ApiError.notFound('Model', 'model');
    throw new ApiError('not_found', `${ApiError.notFound('Model').message}. ${hint}`, 'model');
  }

  private async spaceOf(auth: AuthContext): Promise<SpaceContext> {
    if (!auth.appId) {
      throw new ApiError(
        'invalid_request',
        'This key is not bound to a Space; the models a Space offers need a Space key (see `cli keys create --app-id`).',
        'Authorization',
      );
    }
    const { space } = await this.deps.spaces.find(auth.appId);
    if (!space || space.orgId !== auth.orgId) throw ApiError.notFound('Space', 'Authorization');
    return space;
  }

  /** The models the Space can see beyond those it offers: off in the Space, or switched off service-wide (catalog order). */
  private async othersOf(space: SpaceContext, offered: Listed[]): Promise<Listed[]> {
    const app = await appStore.findById(this.deps.db, space.id);
    if (!app) return [];
    const scope = { orgId: app.org_id, appIds: app.sandbox_of ? [app.id, app.sandbox_of] : [app.id] };
    const [catalog, custom, states] = await Promise.all([
      modelStore.listPublic(this.deps.db),
      modelStore.listCustom(this.deps.db, scope),
      modelStore.activeStates(this.deps.db, app.id),
    ]);
    const shown = new Set(offered.map((entry) => entry.model.id));
    const now = new Date();
    return [...catalog, ...custom]
      .filter((row) => !shown.has(row.id))
      .map((row) => {
        const active = states.get(row.id) ?? false;
        return { model: toRoutableModel(row), reasons: this.deps.availability.reasonsOfRow(row, active, now), active, added: row.added_on };
      });
  }

  /** When the Space and its models were added: the routing context does not carry dates. */
  private async datesOf(space: SpaceContext, shown: Listed[]): Promise<{ space: Date | undefined; models: Map<string, Date> }> {
    const [added, models] = await Promise.all([
      appStore.addedOn(this.deps.db, space.id),
      modelStore.addedOn(
        this.deps.db,
        shown.filter((entry) => entry.added === undefined).map((entry) => entry.model.id),
      ),
    ]);
    return { space: added, models };
  }
}
