import type { PrivacyPolicy } from '../domain/privacy-policy';
import { isDeprecated, isRetired, type RoutableModel } from '../domain/routable-model';
import { ApiError } from '../errors/api-error';
import { modelAllowed, type ModelAllowList } from '../domain/model-allow-list';
import type { SpaceContext } from '../store/space-context';
import { didYouMean } from '../text/close-names';

export interface EmbeddingModelChoice {
  space: Pick<SpaceContext, 'models' | 'embeddingModels'>;
  /** The request's `model`; absent or the service's own name: the cheapest eligible model. */
  requested: string | undefined;
  autoModelName: string;
  privacy: PrivacyPolicy;
  /** Whether the model's provider is configured and can embed. */
  canEmbed(model: RoutableModel): boolean;
  /** Whether a model of that name exists for the organization (active in the Space or not). */
  modelExists(name: string): Promise<boolean>;
  now: Date;
  /** The key's `allowed_models`, when it has a list. */
  allowedModels?: ModelAllowList | null;
}

const named = (name: string) => (m: RoutableModel) => m.model === name || `${m.provider}/${m.namespace}` === name;

/** Why a model of the Space cannot embed this request now, or null. */
function exclusion(model: RoutableModel, choice: EmbeddingModelChoice): string | null {
  if (!choice.canEmbed(model)) return `its provider '${model.provider}' is not configured or serves no embeddings`;
  if (isRetired(model, choice.now)) return 'it is retired';
  if (choice.privacy.needsGdprModel && !model.isGdpr) return 'privacy level 3 needs a model processed under GDPR terms';
  return null;
}

async function namedModel(name: string, choice: EmbeddingModelChoice): Promise<RoutableModel> {
  const model = choice.space.embeddingModels.find(named(name));
  if (!model) {
    if (choice.space.models.some(named(name))) {
      throw new ApiError('model_not_available', `Model '${name}' is a chat model; embeddings need an embedding model (e.g. text-embedding-3-small).`, 'model');
    }
    if (await choice.modelExists(name)) throw new ApiError('model_not_available', `Model '${name}' is not active in this Space.`, 'model');
    // The closest embedding models that can answer now (error path only).
    const hint = didYouMean(
      name,
      choice.space.embeddingModels.filter((m) => exclusion(m, choice) === null).map((m) => m.model),
    );
    throw new ApiError('not_found', `Model '${name}' does not exist.${hint ? ` ${hint}` : ''}`, 'model');
  }
  const reason = exclusion(model, choice);
  if (reason) throw new ApiError('model_not_available', `Model '${name}' cannot take this request: ${reason}.`, 'model');
  return model;
}

/**
 * The embedding model that answers: the one named, if the Space has it switched on; else the Space's
 * cheapest active embedding model (price per input token, then name), leaving out deprecated ones when
 * another is left. There is no ranking by quality: vectors of different models are not comparable, so
 * a client that keeps an index should name its model.
 */
export async function chooseEmbeddingModel(choice: EmbeddingModelChoice): Promise<RoutableModel> {
  const { requested, autoModelName } = choice;
  const { allowedModels } = choice;
  if (requested !== undefined && requested !== autoModelName) {
    const model = await namedModel(requested, choice);
    if (allowedModels && !modelAllowed(model, allowedModels)) {
      throw new ApiError(
        'model_not_allowed',
        `Model '${requested}' is not among the models this key may call (allowed_models: ${allowedModels.join(', ')}).`,
        'model',
      );
    }
    return model;
  }
  const reasons: string[] = [];
  const candidates = allowedModels ? choice.space.embeddingModels.filter((model) => modelAllowed(model, allowedModels)) : choice.space.embeddingModels;
  const eligible = candidates.filter((model) => {
    const reason = exclusion(model, choice);
    if (reason) reasons.push(`${model.model}: ${reason}`);
    return reason === null;
  });
  const current = eligible.filter((model) => !isDeprecated(model, choice.now));
  const cheapest = [...(current.length > 0 ? current : eligible)].sort((a, b) => a.promptTokenCost - b.promptTokenCost || a.model.localeCompare(b.model))[0];
  if (!cheapest) {
    const why = reasons.length > 0 ? ` (${reasons.slice(0, 5).join('; ')})` : ' (none is active: switch one on, e.g. text-embedding-3-small)';
    throw new ApiError('model_not_available', `No embedding model of this Space can take this request${why}.`, 'model');
  }
  return cheapest;
}
